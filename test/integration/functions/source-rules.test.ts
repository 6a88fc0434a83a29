import { isIP } from "node:net";
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  SQSBatchResponse,
  SQSEvent,
} from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandler as createAdminUsers } from "#functions/http/admin-users";
import { createHandler as createSyncWorker } from "#functions/queue/sync";
import type { PinnedFetch } from "#lib/calendar/pinned-connection";
import { DynamoStore } from "#lib/store/dynamo-store";
import { scriptedDns } from "../../support/scripted-dns";
import { eventFixture, lambdaContext, type Stack, startStack } from "./harness";

/** The stack of the describe block running now (each starts its own). */
let stack: Stack;
const adminUsers = createAdminUsers(() => stack.app);
const syncWorker = createSyncWorker(() => stack.app);
const ctx = lambdaContext("statuspilot-test-sourceRules");
const call = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> =>
  (await adminUsers(event, ctx)) as APIGatewayProxyStructuredResultV2;
const bodyOf = (res: APIGatewayProxyStructuredResultV2) => JSON.parse(res.body ?? "{}");

const TEAM = "T0DEMO";
const PUBLIC_FEED = { id: "public", url: "https://calendar.example/feeds/ok.ics", kind: "ics" };

/** PUT /admin/users/T0DEMO/{user} with `sources`, from the fixture (its key and route). */
function putUser(user: string, sources: unknown[]): APIGatewayProxyEventV2 {
  const fixture = eventFixture("admin-put-user.json");
  return {
    ...fixture,
    rawPath: `/admin/users/${TEAM}/${user}`,
    pathParameters: { team: TEAM, user },
    body: JSON.stringify({ tz: "Europe/Lisbon", token: "xoxp-demo-U002", sources }),
  };
}

function getUser(user: string): APIGatewayProxyEventV2 {
  const fixture = eventFixture("admin-get-user.json");
  return {
    ...fixture,
    rawPath: `/admin/users/${TEAM}/${user}`,
    pathParameters: { team: TEAM, user },
  };
}

/** One sync-queue record for `sourceId` of `user`, as SQS delivers it. */
const syncEvent = (user: string, sourceId: string): SQSEvent =>
  ({
    Records: [
      {
        messageId: `sync-${user}-${sourceId}`,
        body: JSON.stringify({ team: TEAM, user, sourceId, reason: "poll" }),
        attributes: {},
      },
    ],
  }) as unknown as SQSEvent;

/** Addresses no feed may have on AWS; each must be refused as registered (a literal host). */
const PRIVATE_FEEDS = [
  "http://127.0.0.1:8080/cal.ics",
  "http://127.8.9.10/cal.ics",
  "http://10.0.0.5/cal.ics",
  "http://172.16.0.1/cal.ics",
  "http://172.31.255.254/cal.ics",
  "http://192.168.1.20/cal.ics",
  "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
  "http://0.0.0.0:3000/cal.ics",
  "http://[::1]/cal.ics",
  "http://[fd00:ec2::254]/latest/meta-data/",
  "http://[fc00::1]/cal.ics",
  "http://[fe80::1]/cal.ics",
  "http://[::ffff:127.0.0.1]/cal.ics",
  "http://localhost:8080/cal.ics",
  "https://LOCALHOST./cal.ics",
  "http://calendar.localhost/cal.ics",
  "http://100.64.0.1/a.ics",
  "http://198.18.0.1/a.ics",
  "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/",
  "http://[2002:a9fe:a9fe::1]/a.ics",
  // Other spellings of 127.0.0.1 that URL parsers and resolvers accept.
  "http://2130706433/cal.ics",
  "http://0x7f.1/cal.ics",
];

/** Neighbours of the private ranges: public, so they must be accepted. */
const PUBLIC_NEIGHBOURS = [
  "http://172.15.255.255/cal.ics",
  "http://172.32.0.1/cal.ics",
  "http://11.0.0.1/cal.ics",
  "http://169.255.0.1/cal.ics",
  "http://192.169.0.1/cal.ics",
  "http://[2001:db8::1]/cal.ics",
  "http://100.128.0.1/a.ics",
  "http://198.20.0.1/a.ics",
  "http://[2003::1]/a.ics",
  "https://localhost.example.com/cal.ics",
];

describe("admin PUT of a user's sources, as on AWS", () => {
  /** Each feed request made, with the address its connection went to. */
  const connections: { url: string; address: string }[] = [];
  /**
   * What the feed hosts resolve to, as DNS would answer: one list per lookup, the last repeated.
   * rebinding.example answers a public address first and the metadata service after it.
   */
  const dns: Record<string, string[][]> = {
    "calendar.example": [["93.184.216.34"]],
    "rebound.example": [["10.20.30.40"]],
    "mixed.example": [["93.184.216.34", "169.254.169.254"]],
    "redirecting.example": [["93.184.216.34"]],
    "rebinding.example": [["93.184.216.34"], ["169.254.169.254"]],
    "cgnat.example": [["100.64.12.34"]],
  };
  const { resolveHost: resolve, lookups } = scriptedDns(dns);
  /** The addresses inside the account's network among those the test's hosts have. */
  const INSIDE = new Set(["10.20.30.40", "169.254.169.254", "100.64.12.34"]);
  const wentInside = (c: { address: string }): boolean => INSIDE.has(c.address);

  /** What the feed hosts serve: a calendar, or a redirect to the metadata service. */
  const serve = (
    url: string,
    redirect: RequestRedirect | undefined,
  ): Promise<Response> | Response => {
    if (url.startsWith("https://redirecting.example/")) {
      const location = "http://169.254.169.254/latest/meta-data/iam/security-credentials/";
      const redirected = new Response(null, { status: 302, headers: { location } });
      return redirect === "manual" ? redirected : feedFetch(location, { redirect });
    }
    return new Response("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n", {
      headers: { "content-type": "text/calendar" },
    });
  };
  /**
   * fetch as the system runs it: it resolves the name itself (a lookup of its own, which a
   * rebinding name answers differently) and follows redirects unless told not to.
   */
  const feedFetch: typeof fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.startsWith(stack.emulator.apiBase)) return fetch(input, init);
    const host = new URL(url).hostname;
    const [address = host] = isIP(host) ? [host] : await resolve(host);
    connections.push({ url, address });
    return serve(url, init?.redirect);
  };
  /** The pinned connection: it goes to the first address the check passed, and resolves nothing. */
  const fetchPinned: PinnedFetch = async (url, addresses) => {
    connections.push({ url: url.href, address: addresses[0] ?? "" });
    return serve(url.href, "manual");
  };

  beforeAll(async () => {
    stack = await startStack({
      allowPrivateSourceAddresses: false,
      fetch: (input, init) => feedFetch(input, init),
      resolveHost: resolve,
      fetchPinned,
    });
  });
  afterAll(async () => stack?.close());

  it.each([
    "file:///etc/passwd",
    "ftp://calendar.example/cal.ics",
    "webcal://calendar.example/cal.ics",
    "gopher://calendar.example:70/",
    "javascript:alert(1)",
    "data:text/calendar,BEGIN:VCALENDAR",
    "calendar.example/cal.ics",
  ])("refuses the feed %s with 400 and the pointer of its url, creating nothing", async (url) => {
    // Act
    const put = await call(putUser("U100", [PUBLIC_FEED, { id: "bad", url, kind: "ics" }]));
    const got = await call(getUser("U100"));
    // Assess
    expect(put.statusCode).toBe(400);
    expect(bodyOf(put)).toMatchObject({ error: "bad_request", pointer: "/sources/1/url" });
    expect(got.statusCode).toBe(404);
  });

  it.each(["a#b", "USER#T0DEMO", "a/b", "/", "../x", "line\nbreak"])(
    "refuses the source id %j with 400 and the pointer of its id",
    async (id) => {
      // Act
      const put = await call(putUser("U101", [{ ...PUBLIC_FEED, id }]));
      // Assess
      expect(put.statusCode).toBe(400);
      expect(bodyOf(put)).toMatchObject({ error: "bad_request", pointer: "/sources/0/id" });
    },
  );

  it.each(PRIVATE_FEEDS)("refuses the private feed %s with 400 and its pointer", async (url) => {
    // Prepare
    const queued = stack.syncs.sent.length;
    // Act
    const put = await call(putUser("U102", [PUBLIC_FEED, { id: "inside", url, kind: "ics" }]));
    // Assess
    expect(put.statusCode).toBe(400);
    expect(bodyOf(put)).toMatchObject({ error: "invalid_input", pointer: "/sources/1/url" });
    expect(stack.syncs.sent.length).toBe(queued);
  });

  it.each(PUBLIC_NEIGHBOURS)("accepts the public feed %s", async (url) => {
    // Act
    const put = await call(putUser("U103", [{ id: "outside", url, kind: "ics" }]));
    // Assess
    expect(put.statusCode).toBe(200);
  });

  it.each([
    ["rebound.example", "a name that resolves to a private address"],
    ["mixed.example", "a name with one private address among public ones"],
    ["redirecting.example", "a public feed that redirects to the metadata service"],
    ["cgnat.example", "a name that resolves into the shared address space 100.64.0.0/10"],
  ])("syncs %s (%s) without fetching inside, and without a retry", async (host) => {
    // Prepare: the name itself is public, so the source is registered
    const put = await call(
      putUser("U104", [{ id: "feed", url: `https://${host}/cal.ics`, kind: "ics" }]),
    );
    expect(put.statusCode).toBe(200);
    connections.length = 0;
    // Act
    const res = (await syncWorker(syncEvent("U104", "feed"), ctx)) as SQSBatchResponse;
    // Assess: skipped or read (no dead letter), and no connection went inside
    expect(res.batchItemFailures).toEqual([]);
    expect(connections.filter(wentInside)).toEqual([]);
    expect(bodyOf(await call(getUser("U104"))).user.sources).toEqual([{ id: "feed", kind: "ics" }]);
  });

  it("reads a rebinding name from the address it checked: one lookup, nothing inside", async () => {
    // Prepare: the first lookup answers a public address, every later one the metadata service
    const put = await call(
      putUser("U109", [{ id: "feed", url: "https://rebinding.example/cal.ics", kind: "ics" }]),
    );
    expect(put.statusCode).toBe(200);
    connections.length = 0;
    lookups.clear();
    // Act
    const res = (await syncWorker(syncEvent("U109", "feed"), ctx)) as SQSBatchResponse;
    // Assess: read from the public address the check passed, with no second lookup
    expect(res.batchItemFailures).toEqual([]);
    expect(connections).toEqual([
      { url: "https://rebinding.example/cal.ics", address: "93.184.216.34" },
    ]);
    expect(lookups.get("rebinding.example")).toBe(1);
  });

  it("skips, without a retry, a file: source stored before these rules existed", async () => {
    // Prepare: written straight to the table, as an older version accepted it
    const store = new DynamoStore(stack.dynamo.client, stack.dynamo.tableName);
    await store.putUser(
      {
        key: { team: TEAM, user: "U108" },
        tz: "Europe/Lisbon",
        tokenSealed: "sealed-elsewhere",
        emails: [],
        sources: [{ id: "legacy", url: "file:///etc/passwd", kind: "ics" }],
        rules: {},
        mode: "auto",
        version: 0,
        updatedAt: stack.clock.now(),
      },
      undefined,
    );
    connections.length = 0;
    // Act
    const res = (await syncWorker(syncEvent("U108", "legacy"), ctx)) as SQSBatchResponse;
    // Assess: no dead letter at every poll, and nothing read
    expect(res.batchItemFailures).toEqual([]);
    expect(connections).toEqual([]);
  });

  it("still fetches and applies a feed whose name resolves to public addresses", async () => {
    // Prepare
    await call(putUser("U105", [PUBLIC_FEED]));
    connections.length = 0;
    // Act
    const res = (await syncWorker(syncEvent("U105", "public"), ctx)) as SQSBatchResponse;
    // Assess
    expect(res.batchItemFailures).toEqual([]);
    expect(connections).toEqual([{ url: PUBLIC_FEED.url, address: "93.184.216.34" }]);
    const sources = bodyOf(await call(getUser("U105"))).user.sources;
    // Named by its host and file name: the feed has no X-WR-CALNAME.
    expect(sources).toEqual([
      { id: "public", kind: "ics", syncedAt: stack.clock.now(), name: "calendar.example ok.ics" },
    ]);
  });
});

describe("admin PUT of a user's sources, in the local stack", () => {
  beforeAll(async () => {
    stack = await startStack({ allowPrivateSourceAddresses: true });
  });
  afterAll(async () => stack?.close());

  it.each([
    "http://127.0.0.1:8080/cal.ics",
    "http://localhost:8080/cal.ics",
    "http://192.168.1.20/c",
  ])("accepts the loopback or LAN feed %s", async (url) => {
    // Act
    const put = await call(putUser("U106", [{ id: "local", url, kind: "ics" }]));
    // Assess
    expect(put.statusCode).toBe(200);
    expect(stack.syncs.sent.at(-1)?.message).toMatchObject({ user: "U106", sourceId: "local" });
  });

  it("still refuses a feed that is not http(s)", async () => {
    // Act
    const put = await call(
      putUser("U107", [{ id: "local", url: "file:///etc/hosts", kind: "ics" }]),
    );
    // Assess
    expect(put.statusCode).toBe(400);
    expect(bodyOf(put)).toMatchObject({ pointer: "/sources/0/url" });
  });
});
