import { describe, expect, it } from "vitest";
import type { ConnectAccess } from "#lib/app/accounts/access";
import { createConnectedSync } from "#lib/app/connect/connected-sync";
import type { SyncMessage } from "#lib/app/contracts";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { ManualClock } from "#lib/core/clock";
import type { SourcePush, SourceRecord, UserRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { MemoryStore } from "#lib/store/memory-store";
import { plainUser, statuslessContext } from "../../integration/app/statusless-context";

/**
 * What a push writes on its source's channel, restated: nothing, unless a safety-net read left a
 * `silentSince` there, which the push clears (the channel works again) in one write. Either way
 * the push's sync goes on to read the calendar, and asks for no upkeep.
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

describe("a push's write on its channel", () => {
  it("writes nothing when nothing is silent", async () => {
    for (const createdAgo of [MIN, H, 5 * 24 * H]) {
      const r = await pushArrives(channel({ createdAt: T0 - createdAgo }));
      expect(r.writes, `channel created ${createdAgo} ms ago`).toBe(0);
      expect(r.stored).toEqual(channel({ createdAt: T0 - createdAgo }));
      expect(r.prepared).toMatchObject({ source: { id: "g" } });
    }
  });

  it("clears a silence in one write, and keeps the rest of the channel", async () => {
    for (const silentAgo of [MIN, 3 * H]) {
      const r = await pushArrives(channel({ silentSince: T0 - silentAgo, failures: 1 }));
      expect(r.writes).toBe(1);
      expect(r.stored).toEqual(channel({ failures: 1 }));
      expect(r.prepared).toMatchObject({ source: { id: "g" } });
    }
  });

  it("asks for no upkeep either way", async () => {
    const quiet = await pushArrives(channel());
    const silent = await pushArrives(channel({ silentSince: T0 - MIN }));
    expect([quiet.sent, silent.sent]).toEqual([[], []]);
  });
});
