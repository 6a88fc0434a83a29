import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { routes } from "#functions/routes";
import { UnknownProviderError } from "#lib/calendar/providers/errors";
import {
  CHANNEL_KINDS,
  channelKindSchema,
  findProvider,
  providerFor,
  pushHookFor,
  pushHookOf,
  pushRoutes,
  SOURCE_KINDS,
  sourceKindSchema,
} from "#lib/calendar/providers/registry";
import type { ChannelRecord } from "#lib/core/records";
import { CorruptItemError } from "#lib/store/errors";
import { channelFromItem, channelToItem } from "#lib/store/items/channel";
import { CALENDAR_HOOK_ROUTES, handleCalendarPush, WebhookError } from "../../../lib/webhooks";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** Today's providers: the ICS feed, and the three push hooks (their sources read as ICS). */
const TODAY_SOURCE_KINDS = ["ics", "google", "graph", "generic"];
const TODAY_HOOKS = {
  google: "POST /hooks/google",
  graph: "POST /hooks/graph",
  generic: "POST /hooks/generic/{sourceId}",
};

const channel = (kind: string): ChannelRecord =>
  ({
    channelId: `chan-${kind}`,
    key: { team: "T0DEMO", user: "U001" },
    sourceId: "office",
    kind,
    version: 1,
  }) as ChannelRecord;

/** serverless.yml's HTTP API routes, as "METHOD /path" route keys. */
function serverlessRouteKeys(): string[] {
  const yml = readFileSync(path.join(repoRoot, "serverless.yml"), "utf8");
  const found = yml.matchAll(
    /httpApi:\s*\{\s*method:\s*(\w+),\s*path:\s*(?:"([^"]+)"|([^\s,}]+))/g,
  );
  return [...found].map(([, method, quoted, bare]) => `${method} ${quoted ?? bare}`);
}

describe("the calendar provider registry", () => {
  it("registers the ICS feed and the Google, Graph and generic push hooks", () => {
    expect([...SOURCE_KINDS]).toEqual(TODAY_SOURCE_KINDS);
    expect([...CHANNEL_KINDS]).toEqual(Object.keys(TODAY_HOOKS));
    expect(pushRoutes()).toEqual(
      Object.fromEntries(Object.entries(TODAY_HOOKS).map(([kind, key]) => [key, kind])),
    );
  });

  it("has a provider that reads each source kind, and none for an unknown kind", () => {
    for (const kind of SOURCE_KINDS) {
      expect(typeof providerFor(kind).fetchWindow, kind).toBe("function");
      expect(providerFor(kind).kind).toBe(kind);
    }
    expect(findProvider("caldav")).toBeUndefined();
    // `toString` is on every object: a lookup by key must not find it.
    expect(findProvider("toString")).toBeUndefined();
  });

  it("refuses an unknown kind with an error that names the kinds there are", () => {
    const refused = (() => {
      try {
        providerFor("caldav");
      } catch (error: unknown) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(UnknownProviderError);
    expect((refused as UnknownProviderError).code).toBe("unknown_provider");
    expect((refused as Error).message).toBe(
      'no calendar provider of kind "caldav": the kinds are ics, google, graph, generic',
    );
  });

  it("validates each provider's source address as an http(s) URL outside private networks", () => {
    for (const kind of SOURCE_KINDS) {
      const provider = providerFor(kind);
      const strict = { allowPrivate: false };
      expect(provider.sourceAddressProblem("https://calendar.example/a.ics", strict)).toBe(
        undefined,
      );
      expect(provider.sourceAddressProblem("file:///etc/passwd", strict), kind).toMatch(/http/);
      expect(provider.sourceAddressProblem("http://127.0.0.1/a.ics", strict), kind).toMatch(
        /loopback/,
      );
    }
  });
});

describe("what derives from the registry", () => {
  it("accepts every registered kind in the input schemas, and refuses any other", () => {
    for (const kind of SOURCE_KINDS) expect(sourceKindSchema.safeParse(kind).success).toBe(true);
    for (const kind of CHANNEL_KINDS) expect(channelKindSchema.safeParse(kind).success).toBe(true);
    expect(sourceKindSchema.safeParse("caldav").success).toBe(false);
    // ICS is polled: no channel can be bound for it.
    expect(channelKindSchema.safeParse("ics").success).toBe(false);
  });

  it("stores and reads back a channel of every push kind, and refuses a stored unknown kind", () => {
    for (const kind of CHANNEL_KINDS) {
      expect(channelFromItem(channelToItem(channel(kind))).kind, kind).toBe(kind);
    }
    for (const kind of ["caldav", "ics"]) {
      expect(() => channelFromItem(channelToItem(channel(kind))), kind).toThrow(CorruptItemError);
    }
  });

  it("declares each push hook's route in functions/routes.ts and serverless.yml", () => {
    const declared = routes
      .filter((r) => r.function === "calendarHooks")
      .map((r) => `${r.method} ${r.path}`);
    const deployed = serverlessRouteKeys();
    expect(deployed.length).toBeGreaterThan(declared.length);
    for (const kind of CHANNEL_KINDS) {
      expect(declared, kind).toContain(pushHookOf(kind).routeKey);
      expect(deployed, kind).toContain(pushHookOf(kind).routeKey);
    }
    expect(Object.keys(CALENDAR_HOOK_ROUTES).sort()).toEqual([...declared].sort());
  });

  it("finds each push hook by its route key, and none on another route", () => {
    for (const kind of CHANNEL_KINDS) {
      expect(pushHookFor(pushHookOf(kind).routeKey)?.kind).toBe(kind);
    }
    expect(pushHookFor("POST /hooks/caldav")).toBeUndefined();
    expect(pushHookFor("POST /service/events")).toBeUndefined();
  });

  it("answers 404 on a route no push hook has, before reading anything", async () => {
    const deps = new Proxy({} as never, {
      get: () => {
        throw new Error("no dependency may be used");
      },
    });
    const req = {
      routeKey: "POST /hooks/caldav",
      path: "/hooks/caldav",
      headers: {},
      query: {},
      params: {},
      rawBody: "{}",
    };
    await expect(handleCalendarPush(req, deps)).rejects.toMatchObject({
      constructor: WebhookError,
      code: "not_found",
    });
  });
});
