import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { graphClientState, graphPushHook } from "#lib/calendar/providers/graph";
import type { PushChannel, PushDeps } from "#lib/calendar/providers/provider";
import { ManualClock } from "#lib/core/clock";
import { silentLog } from "#lib/core/ports";
import type { WebhookRequest } from "#lib/http/request";

// The Graph hook with the clientState a real subscription carries: Graph assigns the
// subscription id after the handshake, so the clientState names our channel and its token
// (`<channelId>.<HMAC>`, the token as the README derives it), and authenticates before any read.
// Lifecycle events ask for renew / recreate / resync (Graph's lifecycle documentation).

const SECRET = "demo-signing-secret";
const tokenFor = (id: string) =>
  createHmac("sha256", SECRET).update(`channel-token:${id}`).digest("base64url");
const CHANNEL = "0123456789abcdef0123456789abcdef";
const BINDING: PushChannel = { team: "T0DEMO", user: "U001", sourceId: "outlook" };

function deps(channels: Record<string, PushChannel> = { [CHANNEL]: BINDING }) {
  const lookups: string[] = [];
  const d: PushDeps = {
    clock: new ManualClock(Date.UTC(2026, 10, 24)),
    log: silentLog,
    signingSecret: async () => SECRET,
    findChannel: async (id) => {
      lookups.push(id);
      return channels[id];
    },
  };
  return { d, lookups };
}

const request = (body: unknown, query: Record<string, string> = {}): WebhookRequest => ({
  path: "/hooks/graph",
  headers: {},
  query,
  params: {},
  rawBody: typeof body === "string" ? body : JSON.stringify(body),
});

describe("Graph hook with the composite clientState", () => {
  it("graphClientState is the channel id, a dot and its token, within Graph's 128 characters", () => {
    const state = graphClientState(SECRET, CHANNEL);
    expect(state).toBe(`${CHANNEL}.${tokenFor(CHANNEL)}`);
    expect(state.length).toBeLessThanOrEqual(128);
    expect(() => graphClientState(SECRET, "x".repeat(90))).toThrow(RangeError);
  });

  it("authenticates a notification of any subscription id by its clientState, and re-syncs the channel", async () => {
    const { d, lookups } = deps();
    const note = {
      subscriptionId: "graph-assigned-id",
      clientState: `${CHANNEL}.${tokenFor(CHANNEL)}`,
      changeType: "updated",
    };
    const verdict = await graphPushHook.verifyPush(request({ value: [note] }), d);
    expect(verdict).toMatchObject({ kind: "accepted", channels: [BINDING] });
    expect(lookups).toEqual([CHANNEL]);
    expect("lifecycle" in verdict ? verdict.lifecycle : undefined).toBeUndefined();
  });

  it("refuses a wrong token in the composite form without any lookup", async () => {
    const { d, lookups } = deps();
    const note = { subscriptionId: "s", clientState: `${CHANNEL}.${tokenFor("another")}` };
    await expect(graphPushHook.verifyPush(request({ value: [note] }), d)).rejects.toMatchObject({
      code: "bad_client_state",
    });
    expect(lookups).toEqual([]);
  });

  it("still accepts the token of the subscription id (channels bound before)", async () => {
    const { d } = deps({ "sub-1": BINDING });
    const note = { subscriptionId: "sub-1", clientState: tokenFor("sub-1") };
    expect(await graphPushHook.verifyPush(request({ value: [note] }), d)).toMatchObject({
      channels: [BINDING],
    });
  });

  it("lifecycle events ask: reauthorizationRequired → renew, subscriptionRemoved → recreate, missed → resync", async () => {
    const { d } = deps();
    const clientState = `${CHANNEL}.${tokenFor(CHANNEL)}`;
    for (const [lifecycleEvent, action] of [
      ["reauthorizationRequired", "renew"],
      ["subscriptionRemoved", "recreate"],
      ["missed", "resync"],
    ]) {
      const note = { subscriptionId: "graph-sub", clientState, lifecycleEvent };
      const verdict = await graphPushHook.verifyPush(request({ value: [note] }), d);
      expect(verdict).toMatchObject({
        kind: "accepted",
        channels: [BINDING],
        lifecycle: [{ channel: BINDING, action, subscriptionId: "graph-sub" }],
      });
    }
  });

  it("echoes the validation token as text for the lifecycle URL's handshake too", async () => {
    const { d, lookups } = deps();
    const verdict = await graphPushHook.verifyPush(request("", { validationToken: "abc 123" }), d);
    expect(verdict.kind === "answer" ? verdict.reply : undefined).toMatchObject({
      status: 200,
      text: "abc 123",
    });
    expect(lookups).toEqual([]);
  });
});
