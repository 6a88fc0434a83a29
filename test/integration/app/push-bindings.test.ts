import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { SyncMessage } from "#lib/app/contracts";
import { findChannel, putChannel, retireChannel } from "#lib/app/push/channels";
import { CHANNEL_RETIRE_GRACE_MS } from "#lib/app/push/upkeep";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { ManualClock } from "#lib/core/clock";
import type { StatusStore, TokenVault } from "#lib/core/ports";
import { silentLog } from "#lib/core/ports";
import { MemoryStore } from "#lib/store/memory-store";
import {
  type CalendarPushRequest,
  handleCalendarPush,
  type WebhookDeps,
} from "#lib/webhooks/index";
import { statuslessContext } from "./statusless-context";

/**
 * A replaced channel's binding (a Google renewal makes a new channel and stops the old one)
 * keeps authenticating the pushes already on their way for a short grace, then never again: a
 * push through it is refused like an unknown channel's, after the binding's lookup and before
 * any other read or any decrypt.
 */

const T0 = Date.UTC(2026, 3, 1, 9);
const KEY = { team: "T0DEMO", user: "U001" };
const SECRET = "demo-signing-secret";
const tokenFor = (channelId: string): string =>
  createHmac("sha256", SECRET).update(`channel-token:${channelId}`).digest("base64url");

function setup() {
  const clock = new ManualClock(T0);
  const memory = new MemoryStore();
  const reads: string[] = [];
  // Every store call the hook makes, by name.
  const store = new Proxy(memory, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        reads.push(String(name));
        return value.apply(target, args);
      };
    },
  }) as StatusStore;
  const vault = new LocalTokenVault(Buffer.alloc(32, 7));
  let opened = 0;
  const tokens: TokenVault = {
    seal: (plain, owner) => vault.seal(plain, owner),
    open: (sealed, owner) => {
      opened++;
      return vault.open(sealed, owner);
    },
  };
  const ctx = statuslessContext({ store, clock, tokens });
  const syncs: SyncMessage[] = [];
  const deps = {
    clock,
    log: { ...silentLog, appendKeys: () => undefined },
    signingSecret: async () => SECRET,
    useCases: {} as WebhookDeps["useCases"],
    admin: { findChannel: (id: string) => findChannel(ctx, id), userZone: async () => "UTC" },
    transitionQueue: { send: async () => undefined },
    requestSync: async (msg: SyncMessage) => {
      syncs.push(msg);
      return true;
    },
  } satisfies WebhookDeps;
  return { ctx, clock, deps, syncs, reads, opens: () => opened };
}

const googlePush = (channelId: string): CalendarPushRequest => ({
  routeKey: "POST /hooks/google",
  path: "/hooks/google",
  headers: {
    "x-goog-channel-id": channelId,
    "x-goog-channel-token": tokenFor(channelId),
    "x-goog-resource-state": "exists",
  },
  query: {},
  params: {},
  rawBody: "",
});

describe("retired channel bindings", () => {
  it("a replaced channel's pushes count during the grace, and are refused after it, reading only the binding", async () => {
    const { ctx, clock, deps, syncs, reads, opens } = setup();
    const binding = { key: KEY, sourceId: "google-1", kind: "google" as const };
    await putChannel(ctx, "old-channel", binding);
    await putChannel(ctx, "new-channel", binding);
    // The renewal: the new channel is in use, the old one retires after the grace.
    await retireChannel(ctx, "old-channel", T0 + CHANNEL_RETIRE_GRACE_MS);

    clock.set(T0 + CHANNEL_RETIRE_GRACE_MS - 1);
    const inFlight = await handleCalendarPush(googlePush("old-channel"), deps);
    expect(inFlight).toEqual({ status: 200, json: { ok: true, queued: true } });

    clock.set(T0 + CHANNEL_RETIRE_GRACE_MS);
    reads.length = 0;
    const late = handleCalendarPush(googlePush("old-channel"), deps);
    await expect(late).rejects.toMatchObject({ code: "bad_channel_token" });
    expect(reads).toEqual(["getChannel"]);
    expect(opens()).toBe(0);

    const current = await handleCalendarPush(googlePush("new-channel"), deps);
    expect(current.status).toBe(200);
    expect(syncs.map((s) => s.reason)).toEqual(["push", "push"]);
  });

  it("retiring keeps the earlier instant, and an unknown channel is left alone", async () => {
    const { ctx, clock } = setup();
    await putChannel(ctx, "c1", { key: KEY, sourceId: "google-1", kind: "google" });
    await retireChannel(ctx, "c1", T0);
    await retireChannel(ctx, "c1", T0 + CHANNEL_RETIRE_GRACE_MS);
    await retireChannel(ctx, "never-bound", T0);
    clock.set(T0);
    expect(await findChannel(ctx, "c1")).toBeUndefined();
    expect(await ctx.store.getChannel("never-bound")).toBeUndefined();
  });
});
