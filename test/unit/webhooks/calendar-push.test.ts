import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { SyncMessage } from "#lib/app/contracts";
import { ManualClock } from "#lib/core/clock";
import {
  type CalendarPushRequest,
  type ChannelBinding,
  handleCalendarPush,
  MAX_GRAPH_FAILURES,
  signV0,
  type WebhookDeps,
  WebhookError,
} from "../../../lib/webhooks";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const fixtureBody = (name: string): string =>
  (
    JSON.parse(readFileSync(path.join(repoRoot, "test/fixtures/events", name), "utf8")) as {
      body: string;
    }
  ).body;

/** The secret the fixtures' channel tokens are derived from. */
const SIGNING_SECRET = "demo-signing-secret";
/** The token a channel's pushes carry, computed here as the README documents it. */
const tokenFor = (channelId: string): string =>
  createHmac("sha256", SIGNING_SECRET).update(`channel-token:${channelId}`).digest("base64url");

const GRAPH_BINDING: ChannelBinding = {
  team: "T0DEMO",
  user: "U001",
  sourceId: "outlook",
  secret: tokenFor("sub-graph-1"),
};

/** In-memory fakes of our own ports: channel bindings (one Graph subscription), a log, a queue. */
function fakes(channels: Record<string, ChannelBinding> = { "sub-graph-1": GRAPH_BINDING }) {
  const lookups: string[] = [];
  const logged: Array<{ level: string; message: string; data?: Record<string, unknown> }> = [];
  const syncs: SyncMessage[] = [];
  const record = (level: string) => (message: string, data?: Record<string, unknown>) =>
    void logged.push({ level, message, ...(data ? { data } : {}) });
  const deps = {
    clock: new ManualClock(Date.UTC(2026, 0, 1, 12)),
    log: {
      debug: record("debug"),
      info: record("info"),
      warn: record("warn"),
      error: record("error"),
      appendKeys: () => undefined,
    },
    signingSecret: async () => SIGNING_SECRET,
    useCases: {} as WebhookDeps["useCases"],
    admin: {
      findChannel: async (id: string) => {
        lookups.push(id);
        return channels[id];
      },
      userZone: async () => "UTC",
    },
    transitionQueue: { send: async () => undefined },
    requestSync: async (msg: SyncMessage) => {
      syncs.push(msg);
      return true;
    },
  } satisfies WebhookDeps;
  return { deps, logged, syncs, lookups };
}

const graphRequest = (rawBody: string): CalendarPushRequest => ({
  routeKey: "POST /hooks/graph",
  path: "/hooks/graph",
  headers: {},
  query: {},
  params: {},
  rawBody,
});

describe("handleCalendarPush for Microsoft Graph", () => {
  it("logs that a subscription needing reauthorization must be renewed, and re-syncs now", async () => {
    // Prepare
    const { deps, logged, syncs } = fakes();
    // Act
    const reply = await handleCalendarPush(
      graphRequest(fixtureBody("hooks-graph-lifecycle.json")),
      deps,
    );
    // Assess
    expect(reply).toEqual({ status: 202, json: { ok: true, queued: 1 } });
    // The re-sync, and the renewal asked of the upkeep at once (the hook writes nothing itself).
    expect(syncs).toEqual([
      { team: "T0DEMO", user: "U001", sourceId: "outlook", reason: "push" },
      {
        team: "T0DEMO",
        user: "U001",
        sourceId: "outlook",
        reason: "upkeep",
        upkeep: { request: "renew", channelId: "sub-graph-1" },
      },
    ]);
    expect(logged).toContainEqual({
      level: "warn",
      message: "graph lifecycle notification",
      data: expect.objectContaining({
        sourceId: "outlook",
        lifecycleEvent: "reauthorizationRequired",
        needsRenewal: true,
      }),
    });
    expect(JSON.stringify(logged)).not.toContain(tokenFor("sub-graph-1"));
  });

  it("refuses a body that is not JSON with a 400-coded error naming no field", async () => {
    // Prepare
    const { deps } = fakes();
    // Act
    const failure = handleCalendarPush(graphRequest("{nope"), deps);
    // Assess
    await expect(failure).rejects.toBeInstanceOf(WebhookError);
    await expect(failure).rejects.toMatchObject({ code: "bad_request", pointer: "" });
  });

  it("answers a route it does not serve with a not_found error", async () => {
    const { deps } = fakes();
    await expect(
      handleCalendarPush({ ...graphRequest(""), routeKey: "POST /hooks/other" }, deps),
    ).rejects.toMatchObject({ code: "not_found" });
  });
});

const graphBody = (notes: Array<Record<string, unknown>>): string =>
  JSON.stringify({ value: notes });

describe("handleCalendarPush for Microsoft Graph, at the cost of one request", () => {
  it("reads no subscription and logs one line for 1,000 forged ones", async () => {
    // Prepare
    const { deps, logged, syncs, lookups } = fakes();
    const notes = Array.from({ length: 1000 }, (_, i) => ({
      subscriptionId: `forged-${i}`,
      clientState: "guess",
    }));
    // Act
    const failure = handleCalendarPush(graphRequest(graphBody(notes)), deps);
    // Assess
    await expect(failure).rejects.toMatchObject({ code: "bad_client_state" });
    expect(lookups).toEqual([]);
    expect(syncs).toEqual([]);
    expect(logged).toEqual([
      {
        level: "warn",
        message: "graph notifications skipped",
        data: {
          notifications: 1000,
          subscriptions: 0,
          unknownSubscription: 0,
          badClientState: 1000,
          notLookedUp: 0,
        },
      },
    ]);
  });

  it("reads a subscription named 1,000 times once, and re-syncs its source once", async () => {
    // Prepare
    const { deps, syncs, lookups } = fakes();
    const note = { subscriptionId: "sub-graph-1", clientState: tokenFor("sub-graph-1") };
    // Act
    const reply = await handleCalendarPush(
      graphRequest(graphBody(Array.from({ length: 1000 }, () => note))),
      deps,
    );
    // Assess
    expect(reply).toEqual({ status: 202, json: { ok: true, queued: 1 } });
    expect(lookups).toEqual(["sub-graph-1"]);
    expect(syncs).toHaveLength(1);
  });

  it("still re-syncs a genuine subscription that follows a few forged ones, and counts them", async () => {
    // Prepare
    const { deps, logged, syncs } = fakes();
    const forged = Array.from({ length: MAX_GRAPH_FAILURES - 1 }, (_, i) => ({
      subscriptionId: `forged-${i}`,
    }));
    const notes = [
      ...forged,
      { subscriptionId: "sub-graph-1", clientState: "wrong" },
      { subscriptionId: "sub-graph-1", clientState: tokenFor("sub-graph-1") },
    ];
    // Act
    const reply = await handleCalendarPush(graphRequest(graphBody(notes)), deps);
    // Assess
    expect(reply).toEqual({ status: 202, json: { ok: true, queued: 1 } });
    expect(syncs.map((m) => m.sourceId)).toEqual(["outlook"]);
    expect(logged.filter((l) => l.level === "warn")).toEqual([
      expect.objectContaining({
        message: "graph notifications skipped",
        data: expect.objectContaining({
          unknownSubscription: 0,
          badClientState: MAX_GRAPH_FAILURES,
        }),
      }),
    ]);
  });

  it("refuses a subscription id longer than 255 characters with 400 and reads nothing", async () => {
    // Prepare
    const { deps, lookups } = fakes();
    // Act
    const failure = handleCalendarPush(
      graphRequest(graphBody([{ subscriptionId: "s".repeat(256), clientState: "x" }])),
      deps,
    );
    // Assess
    await expect(failure).rejects.toMatchObject({
      code: "bad_request",
      pointer: "/value/0/subscriptionId",
    });
    expect(lookups).toEqual([]);
  });
});

describe("handleCalendarPush channel ids and kinds", () => {
  const NOW_S = 1_767_268_800;
  const genericRequest = (channelId: string, secret: string): CalendarPushRequest => ({
    routeKey: "POST /hooks/generic/{sourceId}",
    path: `/hooks/generic/${channelId}`,
    headers: {
      "x-statuspilot-timestamp": String(NOW_S),
      "x-statuspilot-signature": signV0(secret, NOW_S, "{}"),
    },
    query: {},
    params: { sourceId: channelId },
    rawBody: "{}",
  });
  const googleRequest = (channelId: string, token: string): CalendarPushRequest => ({
    routeKey: "POST /hooks/google",
    path: "/hooks/google",
    headers: {
      "x-goog-channel-id": channelId,
      "x-goog-channel-token": token,
      "x-goog-resource-state": "exists",
    },
    query: {},
    params: {},
    rawBody: "",
  });
  const google: ChannelBinding = { ...GRAPH_BINDING, secret: tokenFor("chan-1"), kind: "google" };

  it("refuses a generic push naming a Google channel signed with that channel's token", async () => {
    // Prepare
    const { deps, syncs } = fakes({ "chan-1": google });
    deps.clock.set(NOW_S * 1000);
    // Act
    const failure = handleCalendarPush(genericRequest("chan-1", tokenFor("chan-1")), deps);
    // Assess
    await expect(failure).rejects.toMatchObject({ code: "bad_signature" });
    expect(syncs).toEqual([]);
  });

  it("accepts the same channel through its own hook", async () => {
    const { deps, syncs } = fakes({ "chan-1": google });
    const reply = await handleCalendarPush(googleRequest("chan-1", tokenFor("chan-1")), deps);
    expect(reply).toEqual({ status: 200, json: { ok: true, queued: true } });
    expect(syncs).toHaveLength(1);
  });

  it("accepts a binding stored without a kind through any hook, as before kinds existed", async () => {
    // Prepare
    const { deps, syncs } = fakes({ office: GRAPH_BINDING });
    deps.clock.set(NOW_S * 1000);
    // Act
    const reply = await handleCalendarPush(genericRequest("office", tokenFor("office")), deps);
    // Assess
    expect(reply.status).toBe(200);
    expect(syncs).toHaveLength(1);
  });

  it("answers an over-long channel id with unknown_channel without a read", async () => {
    // Prepare
    const { deps, lookups } = fakes();
    const long = "c".repeat(2049);
    // Act
    const viaGoogle = handleCalendarPush(googleRequest(long, "t"), deps);
    const viaGeneric = handleCalendarPush(genericRequest(long, "t"), deps);
    // Assess
    await expect(viaGoogle).rejects.toMatchObject({
      code: "unknown_channel",
      message: expect.stringContaining("1-255 characters"),
    });
    await expect(viaGeneric).rejects.toMatchObject({ code: "unknown_channel" });
    expect(lookups).toEqual([]);
  });
});
