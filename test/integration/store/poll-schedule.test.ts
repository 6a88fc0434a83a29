import { beforeAll, describe, expect, it } from "vitest";
import { pollPhasesEndedBy } from "#lib/core/poll";
import type { SourceRecord, UserRecord } from "#lib/core/records";
import { DynamoStore } from "#lib/store/dynamo-store";
import { dynaliteForFile } from "../../support/dynalite";

const MINUTE = 60_000;
/** A Monday 09:00 UTC: the 5-minute schedule fires on the five, some seconds late. */
const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);

const dynamo = dynaliteForFile();
let store: DynamoStore;
beforeAll(() => {
  store = new DynamoStore(dynamo.client, dynamo.tableName);
});

const source = (id: string, extra: Partial<SourceRecord> = {}): SourceRecord => ({
  id,
  url: `https://cal.example/${id}.ics`,
  kind: "ics",
  ...extra,
});

const user = (id: string, overrides: Partial<UserRecord> = {}): UserRecord => ({
  key: { team: "TPOLL", user: id },
  tz: "UTC",
  tokenSealed: "sealed-token",
  emails: [],
  sources: [source("cal")],
  rules: {},
  mode: "auto",
  version: 0,
  updatedAt: T0,
  ...overrides,
});

/** What one poll run at `now` re-syncs, as the poll composes it: `user/source` ids. */
async function pollAt(now: number): Promise<string[]> {
  const { from, to } = pollPhasesEndedBy(now);
  const users = await store.usersToPoll(from, to);
  return users
    .filter((u) => u.key.team === "TPOLL")
    .flatMap((u) => u.sources.map((s) => `${u.key.user}/${s.id}`));
}

describe("the poll's schedule on the poll index", () => {
  it("finds every source of every active user every 15 minutes, new and failing ones too", async () => {
    // Prepare: never synced, synced long ago (its syncs fail since), just synced, two sources,
    // and users the poll must never find.
    const active = Array.from({ length: 24 }, (_, i) => `U${(i * 7919).toString(36)}`);
    for (const [i, id] of active.entries()) {
      const sources =
        i % 4 === 0
          ? [source("cal")]
          : i % 4 === 1
            ? [source("cal", { syncedAt: T0 - 3 * 86_400_000, etag: '"old"' })]
            : i % 4 === 2
              ? [source("cal", { syncedAt: T0 - 1000, hash: "h" })]
              : [source("cal"), source("team", { syncedAt: T0 - 20 * MINUTE })];
      await store.putUser(user(id, { sources }), undefined);
    }
    await store.putUser(user("U-paused", { mode: "paused" }), undefined);
    await store.putUser(user("U-nosources", { sources: [] }), undefined);
    const found = new Map<string, number[]>();
    const newUserAt = T0 + 47 * MINUTE + 13_000;

    // Act: three hours of runs at :00, :05, … each 0–59 s late; a user added at 09:47:13; on
    // each find some feeds changed (the item is rewritten), the others were unchanged or failed
    // (nothing written).
    for (let k = 0; k <= 36; k++) {
      const at = T0 + k * 5 * MINUTE + ((k * 17) % 60) * 1000 + 400;
      if (at > newUserAt && !found.has("U-new/cal") && !(await store.getUser(user("U-new").key))) {
        await store.putUser(user("U-new"), undefined);
      }
      for (const id of await pollAt(at)) {
        found.set(id, [...(found.get(id) ?? []), at]);
        const [userId] = id.split("/");
        if (k % 3 === 0 && userId !== undefined) {
          const current = await store.getUser(user(userId).key);
          if (current) {
            await store.putUser(
              {
                ...current,
                sources: current.sources.map((s) => ({ ...s, syncedAt: at, hash: `h${k}` })),
              },
              current.version,
            );
          }
        }
      }
    }

    // Assess: every source, and no other, found; each every 15 minutes (the runs' lateness
    // aside), the first within 15 minutes plus a run's period of the start or of its creation.
    const expected = [
      ...active.flatMap((id, i) => (i % 4 === 3 ? [`${id}/cal`, `${id}/team`] : [`${id}/cal`])),
      "U-new/cal",
    ].sort();
    expect([...found.keys()].sort()).toEqual(expected);
    for (const [id, ats] of found) {
      const createdAt = id.startsWith("U-new/") ? newUserAt : T0;
      expect(ats[0] as number, id).toBeLessThanOrEqual(createdAt + 21 * MINUTE);
      const last = ats[ats.length - 1] as number;
      expect(last, id).toBeGreaterThanOrEqual(T0 + 180 * MINUTE - 16 * MINUTE);
      for (let i = 1; i < ats.length; i++) {
        const gap = (ats[i] as number) - (ats[i - 1] as number);
        expect(gap, id).toBeGreaterThanOrEqual(14 * MINUTE);
        expect(gap, id).toBeLessThanOrEqual(16 * MINUTE);
      }
    }
  });
});
