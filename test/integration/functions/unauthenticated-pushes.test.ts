import { createHmac } from "node:crypto";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandler as createAdminHandler } from "#functions/http/admin-users";
import { createHandler } from "#functions/http/calendar";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import type { SealOwner, TokenVault } from "#lib/core/ports";
import { FIXTURE_NOW_MS, lambdaContext, type Stack, startStack } from "./harness";

/** The harness's signing secret; the token oracle below is the README's formula. */
const SIGNING = "demo-signing-secret";
const tokenFor = (channelId: string): string =>
  createHmac("sha256", SIGNING).update(`channel-token:${channelId}`).digest("base64url");
const v0 = (key: string, ts: number, body: string): string =>
  `v0=${createHmac("sha256", key).update(`v0:${ts}:${body}`).digest("hex")}`;

const ALICE = { team: "T0DEMO", user: "U001" };
const BOUND = { google: "chan-cost-google", graph: "sub-cost-graph", generic: "cost-generic" };
const FLOOD = 50;

/** Counts every seal and open: on AWS each one is a KMS request. */
class CountingVault implements TokenVault {
  opens = 0;
  seals = 0;
  constructor(private readonly inner: TokenVault) {}
  async seal(plain: string, owner: SealOwner): Promise<string> {
    this.seals++;
    return this.inner.seal(plain, owner);
  }
  async open(sealed: string, owner: SealOwner): Promise<string> {
    this.opens++;
    return this.inner.open(sealed, owner);
  }
}

/** A pass-through HTTP proxy in front of dynalite that counts the DynamoDB requests it sees. */
async function countingProxy(
  target: string,
): Promise<{ url: string; count: () => number; server: Server }> {
  let requests = 0;
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    requests++;
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, count: () => requests, server };
}

const event = (
  route: string,
  rawPath: string,
  init: Partial<APIGatewayProxyEventV2>,
): APIGatewayProxyEventV2 => ({
  version: "2.0",
  routeKey: `POST ${route}`,
  rawPath,
  rawQueryString: "",
  headers: {},
  isBase64Encoded: false,
  requestContext: {
    accountId: "123456789012",
    apiId: "api",
    domainName: "example.com",
    domainPrefix: "example",
    http: {
      method: "POST",
      path: rawPath,
      protocol: "HTTP/1.1",
      sourceIp: "203.0.113.9",
      userAgent: "t",
    },
    requestId: "r",
    routeKey: `POST ${route}`,
    stage: "$default",
    time: "01/Jan/2026:12:00:00 +0000",
    timeEpoch: FIXTURE_NOW_MS,
  },
  ...init,
});

const googlePush = (channelId: string, token: string | undefined) =>
  event("/hooks/google", "/hooks/google", {
    headers: {
      "x-goog-channel-id": channelId,
      ...(token !== undefined ? { "x-goog-channel-token": token } : {}),
      "x-goog-resource-state": "exists",
    },
  });
const graphPush = (notes: Array<{ subscriptionId: string; clientState?: string }>) =>
  event("/hooks/graph", "/hooks/graph", {
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ value: notes }),
  });
const genericPush = (channelId: string, key: string) => {
  const ts = Math.floor(FIXTURE_NOW_MS / 1000);
  return event("/hooks/generic/{sourceId}", `/hooks/generic/${channelId}`, {
    pathParameters: { sourceId: channelId },
    headers: {
      "x-statuspilot-timestamp": String(ts),
      "x-statuspilot-signature": v0(key, ts, "{}"),
    },
    body: "{}",
  });
};

const send = async (e: APIGatewayProxyEventV2) =>
  (await handler(e, lambdaContext("calendar"))) as APIGatewayProxyStructuredResultV2;

let stack: Stack;
const adminHandler = createAdminHandler(() => stack.app);
const handler = createHandler(() => stack.app);
let vault: CountingVault;
let dynamo: Awaited<ReturnType<typeof countingProxy>>;

beforeAll(async () => {
  vault = new CountingVault(new LocalTokenVault(Buffer.alloc(32, 7).toString("base64")));
  stack = await startStack({
    tokens: vault,
    // Every DynamoDB request of the App goes through a proxy that counts them.
    dynamoVia: async (endpoint) => {
      dynamo = await countingProxy(endpoint);
      return dynamo.url;
    },
  });
  const app = stack.app;
  const pilot = app.pilot;
  if (!pilot) throw new Error("the composition root built no StatusPilot");
  await pilot.upsertUser({
    key: ALICE,
    tz: "Europe/Berlin",
    token: "xoxp-cost-user-token",
    sources: [{ id: "office", url: "https://calendar.example/office.ics", kind: "ics" }],
    mode: "auto",
  });
  for (const [kind, channelId] of Object.entries(BOUND) as Array<[keyof typeof BOUND, string]>) {
    await pilot.putChannel(channelId, { key: ALICE, sourceId: "office", secret: "stored", kind });
  }
});
afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => dynamo?.server.close(resolve));
});

/** Runs `pushes` and returns the DynamoDB requests and KMS opens/seals they caused. */
async function costOf(pushes: APIGatewayProxyEventV2[]) {
  const before = { dynamo: dynamo.count(), kms: vault.opens + vault.seals };
  const answers = [];
  for (const p of pushes) answers.push(await send(p));
  return {
    answers,
    dynamo: dynamo.count() - before.dynamo,
    kms: vault.opens + vault.seals - before.kms,
  };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe("unauthenticated calendar pushes cost nothing", () => {
  it("answers 50 Google pushes with wrong or missing tokens without a DynamoDB or KMS call", async () => {
    const {
      answers,
      dynamo: reads,
      kms,
    } = await costOf(
      range(FLOOD).map((i) =>
        googlePush(i % 2 ? BOUND.google : `chan-guess-${i}`, i % 3 ? `guess-${i}` : undefined),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(range(FLOOD).map(() => 401));
    expect({ reads, kms }).toEqual({ reads: 0, kms: 0 });
  });

  it("answers 50 Graph batches of 10 forged notifications without a DynamoDB or KMS call", async () => {
    const {
      answers,
      dynamo: reads,
      kms,
    } = await costOf(
      range(FLOOD).map((i) =>
        graphPush(
          range(10).map((j) => ({
            subscriptionId: j % 2 ? BOUND.graph : `sub-guess-${i}-${j}`,
            clientState: `guess-${j}`,
          })),
        ),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(range(FLOOD).map(() => 401));
    expect({ reads, kms }).toEqual({ reads: 0, kms: 0 });
  });

  it("answers 50 generic pushes signed with the wrong key without a DynamoDB or KMS call", async () => {
    const {
      answers,
      dynamo: reads,
      kms,
    } = await costOf(
      range(FLOOD).map((i) =>
        genericPush(i % 2 ? BOUND.generic : `guess-${i}`, i % 3 ? "stored" : SIGNING),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(range(FLOOD).map(() => 401));
    expect({ reads, kms }).toEqual({ reads: 0, kms: 0 });
  });

  it("still accepts each hook's genuine push (so the counters above could count)", async () => {
    const { answers, dynamo: reads } = await costOf([
      googlePush(BOUND.google, tokenFor(BOUND.google)),
      graphPush([{ subscriptionId: BOUND.graph, clientState: tokenFor(BOUND.graph) }]),
      genericPush(BOUND.generic, tokenFor(BOUND.generic)),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 202, 200]);
    expect(reads).toBeGreaterThan(0);
  });

  it("costs no KMS call for genuine pushes either: the channel's stored secret stays sealed", async () => {
    // Each binding above stores a sealed secret; no hook needs it to authenticate a push.
    const { answers, kms } = await costOf(
      range(10).flatMap(() => [
        googlePush(BOUND.google, tokenFor(BOUND.google)),
        graphPush([{ subscriptionId: BOUND.graph, clientState: tokenFor(BOUND.graph) }]),
        genericPush(BOUND.generic, tokenFor(BOUND.generic)),
      ]),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(range(10).flatMap(() => [200, 202, 200]));
    expect(kms).toBe(0);
  });
});

describe("an unknown channel answers exactly like a bad token", () => {
  const same = (a: APIGatewayProxyStructuredResultV2, b: APIGatewayProxyStructuredResultV2) =>
    expect({ status: a.statusCode, body: a.body }).toEqual({ status: b.statusCode, body: b.body });

  it("through the Google hook", async () => {
    same(
      await send(googlePush("chan-nobody", "guess")),
      await send(googlePush(BOUND.google, "guess")),
    );
    // Even the right token for an id nobody bound says nothing more.
    same(
      await send(googlePush("chan-nobody", tokenFor("chan-nobody"))),
      await send(googlePush(BOUND.google, "guess")),
    );
  });

  it("through the Graph hook", async () => {
    same(
      await send(graphPush([{ subscriptionId: "sub-nobody", clientState: "guess" }])),
      await send(graphPush([{ subscriptionId: BOUND.graph, clientState: "guess" }])),
    );
    same(
      await send(
        graphPush([{ subscriptionId: "sub-nobody", clientState: tokenFor("sub-nobody") }]),
      ),
      await send(graphPush([{ subscriptionId: BOUND.graph, clientState: "guess" }])),
    );
  });

  it("through the generic hook", async () => {
    same(
      await send(genericPush("nobody", "guess")),
      await send(genericPush(BOUND.generic, "guess")),
    );
    same(
      await send(genericPush("nobody", tokenFor("nobody"))),
      await send(genericPush(BOUND.generic, "guess")),
    );
  });
});

describe("admin channel registration", () => {
  it("answers with the token each push must carry", async () => {
    const put = event("/admin/channels/{channelId}", "/admin/channels/chan-admin-1", {
      routeKey: "PUT /admin/channels/{channelId}",
      pathParameters: { channelId: "chan-admin-1" },
      headers: { "content-type": "application/json", "x-api-key": "test-admin-key" },
      body: JSON.stringify({ ...ALICE, sourceId: "office", kind: "google" }),
    });
    put.requestContext.http.method = "PUT";
    const res = (await adminHandler(
      put,
      lambdaContext("admin"),
    )) as APIGatewayProxyStructuredResultV2;
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body ?? "{}")).toMatchObject({ token: tokenFor("chan-admin-1") });
  });
});
