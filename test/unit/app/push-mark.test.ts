import { describe, expect, it } from "vitest";
import type { ConnectAccess } from "#lib/app/connect-access";
import { createConnectedSync } from "#lib/app/connect-read";
import type { SyncMessage } from "#lib/app/contracts";
import { LocalTokenVault } from "#lib/app/local-token-vault";
import { ManualClock } from "#lib/core/clock";
import type { SourcePush, SourceRecord, UserRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { MemoryStore } from "#lib/store/memory-store";
import { plainUser, statuslessContext } from "../../integration/app/statusless-context";

/**
 * A push's mark on its source, restated: a push records its time (`lastPushAt`) on the source's
 * channel, and clears a `silentSince` a safety-net read left there. When the channel already
 * records a push less than an hour old and nothing is silent, the push writes nothing (the mark
 * is then at most an hour behind; its one reader, the "no message for a whole lifetime" lapse,
 * counts in days). Either way the push's sync goes on to read the calendar.
 */
const MIN = 60_000;
const H = 60 * MIN;
const T0 = Date.UTC(2026, 10, 24, 9);
const KEY: UserKey = { team: "TPUSH", user: "U1" };

/** A Google channel created a day ago, living 7 days. */
const channel = (over: Partial<SourcePush> = {}): SourcePush => ({
  channelId: "c1",
  createdAt: T0 - 24 * H,
  expiresAt: T0 + 6 * 24 * H,
  ...over,
});

/** Counts the profile writes. */
class CountingStore extends MemoryStore {
  userWrites = 0;
  override async putUser(user: UserRecord, expectedVersion: number | undefined) {
    this.userWrites++;
    return super.putUser(user, expectedVersion);
  }
}

/** One push's sync of a connected source whose channel is `push`, prepared at T0. */
async function pushArrives(push: SourcePush) {
  const store = new CountingStore();
  const source: SourceRecord = {
    id: "g",
    kind: "google",
    refreshTokenSealed: "sealed-refresh",
    cursor: "sync-1",
    push,
  };
  await store.putUser(plainUser(KEY, T0 - 24 * H, [source]), undefined);
  store.userWrites = 0;
  const ctx = statuslessContext({
    store,
    clock: new ManualClock(T0),
    tokens: new LocalTokenVault(Buffer.alloc(32, 3)),
  });
  const sent: SyncMessage[] = [];
  const connected = createConnectedSync(ctx, {} as ConnectAccess, {
    syncQueue: { send: async (m: SyncMessage) => void sent.push(m) },
  });
  const prepared = await connected.prepare(KEY, "g", "push");
  const stored = (await store.getUser(KEY))?.sources[0]?.push;
  return { prepared, writes: store.userWrites, stored, sent };
}

describe("a push's mark on its channel", () => {
  it("writes nothing when a push under an hour old is recorded and nothing is silent", async () => {
    for (const ago of [0, 1, 30 * MIN, 59 * MIN, H - 1]) {
      const r = await pushArrives(channel({ lastPushAt: T0 - ago }));
      expect(r.writes, `last push ${ago} ms ago`).toBe(0);
      expect(r.stored?.lastPushAt).toBe(T0 - ago);
      expect(r.prepared).toMatchObject({ source: { id: "g" } });
    }
  });

  it("records the push when the recorded one is an hour old or more, or there is none", async () => {
    for (const lastPushAt of [T0 - H, T0 - 2 * H, T0 - 5 * 24 * H, undefined]) {
      const r = await pushArrives(channel(lastPushAt === undefined ? {} : { lastPushAt }));
      expect(r.writes, `last push at ${lastPushAt}`).toBe(1);
      expect(r.stored).toEqual(channel({ lastPushAt: T0 }));
      expect(r.prepared).toMatchObject({ source: { id: "g" } });
    }
  });

  it("clears a silence whatever the recorded push's age", async () => {
    for (const lastPushAt of [T0 - MIN, T0 - 3 * H]) {
      const r = await pushArrives(channel({ lastPushAt, silentSince: T0 - 10 * MIN }));
      expect(r.writes).toBe(1);
      expect(r.stored).toEqual(channel({ lastPushAt: T0 }));
    }
  });

  it("asks for no upkeep either way", async () => {
    const recent = await pushArrives(channel({ lastPushAt: T0 - MIN }));
    const old = await pushArrives(channel({ lastPushAt: T0 - 2 * H }));
    expect([recent.sent, old.sent]).toEqual([[], []]);
  });
});
