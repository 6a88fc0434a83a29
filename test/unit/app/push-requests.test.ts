import { describe, expect, it } from "vitest";
import { pushStep } from "#lib/app/push/plan";
import { requestPushWork } from "#lib/app/push/requests";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { ManualClock } from "#lib/core/clock";
import type { SourcePush } from "#lib/core/records";
import { MemoryStore } from "#lib/store/memory-store";
import { plainUser, statuslessContext } from "../../integration/app/statusless-context";

// Graph's lifecycle notifications, as the issue states them: reauthorizationRequired → renew,
// subscriptionRemoved → recreate; recorded on the source's channel for its next upkeep, and
// ignored when they name a subscription the source no longer uses.

const T0 = Date.UTC(2026, 10, 24, 8);
const HOUR = 3_600_000;
const KEY = { team: "T0DEMO", user: "U001" };
const PUSH: SourcePush = { channelId: "sub-1", createdAt: T0, expiresAt: T0 + 72 * HOUR };

describe("push lifecycle requests", () => {
  it("a requested recreate makes the channel lapsed ('removed'); a requested renew renews now", () => {
    expect(pushStep(PUSH, T0 + HOUR)).toMatchObject({ kind: "none" });
    expect(pushStep({ ...PUSH, requested: "recreate" }, T0 + HOUR)).toEqual({
      kind: "recreate",
      reason: "removed",
    });
    expect(pushStep({ ...PUSH, requested: "renew" }, T0 + HOUR)).toEqual({ kind: "renew" });
  });

  it("records the request on the source's current channel only, a recreate outranking a renew", async () => {
    const store = new MemoryStore();
    const ctx = statuslessContext({
      store,
      clock: new ManualClock(T0),
      tokens: new LocalTokenVault(Buffer.alloc(32, 5)),
    });
    const graph = { id: "graph-1", url: "https://graph.example/me", kind: "graph" as const };
    await store.putUser(plainUser(KEY, T0, [{ ...graph, push: PUSH }]), undefined);
    const pushOf = async () => (await store.getUser(KEY))?.sources[0]?.push;
    expect(await requestPushWork(ctx, KEY, "graph-1", "renew", "an-older-subscription")).toBe(
      false,
    );
    expect((await pushOf())?.requested).toBeUndefined();
    expect(await requestPushWork(ctx, KEY, "graph-1", "renew", "sub-1")).toBe(true);
    expect((await pushOf())?.requested).toBe("renew");
    expect(await requestPushWork(ctx, KEY, "graph-1", "recreate", "sub-1")).toBe(true);
    expect(await requestPushWork(ctx, KEY, "graph-1", "renew", "sub-1")).toBe(true);
    expect((await pushOf())?.requested).toBe("recreate");
    expect(await requestPushWork(ctx, KEY, "no-such-source", "renew")).toBe(false);
  });
});
