import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { POLL_INTERVAL_MS } from "#lib/core/poll";
import type { StatusStore } from "#lib/core/ports";
import { ConflictError } from "#lib/store/errors";
import { pollPhase } from "#lib/store/items/user";
import {
  ALICE,
  ALICE_ELSEWHERE,
  aChannel,
  aDueEntry,
  anAbsence,
  aStatus,
  aTimeline,
  aUser,
  BOB,
  byKey,
  channelKind,
  dueAt,
  ics,
  keyOrder,
  scribble,
  snoozeKind,
  sortBy,
  statusKind,
  T0,
  timelineKind,
  userKind,
  type VersionedKind,
} from "./status-store.fixtures";

/**
 * What every StatusStore promises (lib/core/ports.ts), run against each adapter: the DynamoDB
 * store over dynalite and the in-memory store. Each test gets a fresh, empty store.
 */
export interface StatusStoreUnderTest {
  store: StatusStore;
  cleanup(): Promise<void>;
}

/**
 * A promise of the port an adapter is known to break. Its test is then expected to fail
 * (`it.fails`), so the run stays green and turns red the day the adapter is fixed.
 */
export type KnownGap =
  /** `dueBetween(t, t)` and `usersToPoll(p, p)` should find nothing; DynamoDB rejects the query. */
  "empty-window";

/** The one place that knows how a lost version race surfaces. */
export async function expectVersionConflict(write: Promise<unknown>): Promise<void> {
  await expect(write).rejects.toBeInstanceOf(ConflictError);
}

export function describeStatusStoreContract(
  name: string,
  makeStore: () => Promise<StatusStoreUnderTest>,
  options: { knownGaps?: readonly KnownGap[] } = {},
): void {
  const itKeeps = (gap: KnownGap) => (options.knownGaps?.includes(gap) ? it.fails : it);
  describe(`StatusStore contract: ${name}`, () => {
    let subject: StatusStoreUnderTest;
    let store: StatusStore;
    beforeEach(async () => {
      subject = await makeStore();
      store = subject.store;
    });
    afterEach(async () => {
      await subject.cleanup();
    });

    for (const kind of [
      userKind,
      statusKind,
      timelineKind,
      channelKind,
      snoozeKind,
    ] as VersionedKind<{
      version: number;
    }>[]) {
      describe(`${kind.name} records`, () => {
        it("creates with version 1, whatever version the record carries, and reads every field back", async () => {
          // Prepare
          const record = { ...kind.make(ALICE, 1), version: 42 };
          // Act
          const written = await kind.put(store, record, undefined);
          const read = await kind.get(store, ALICE);
          // Assess
          expect(written).toEqual({ ...record, version: 1 });
          expect(read).toEqual({ ...record, version: 1 });
        });

        it("writes over the expected version as the next one", async () => {
          // Prepare
          const v1 = await kind.put(store, kind.make(ALICE, 1), undefined);
          // Act
          const v2 = await kind.put(store, kind.make(ALICE, 2), v1.version);
          const v3 = await kind.put(store, kind.make(ALICE, 3), v2.version);
          // Assess
          expect([v2.version, v3.version]).toEqual([2, 3]);
          expect(await kind.get(store, ALICE)).toEqual({ ...kind.make(ALICE, 3), version: 3 });
        });

        it("refuses to create a record that exists, and keeps the first", async () => {
          // Prepare
          await kind.put(store, kind.make(ALICE, 1), undefined);
          // Act / Assess
          await expectVersionConflict(kind.put(store, kind.make(ALICE, 2), undefined));
          expect(await kind.get(store, ALICE)).toEqual({ ...kind.make(ALICE, 1), version: 1 });
        });

        it("refuses a write on a stale version, and keeps the winner", async () => {
          // Prepare
          const v1 = await kind.put(store, kind.make(ALICE, 1), undefined);
          await kind.put(store, kind.make(ALICE, 2), v1.version);
          // Act / Assess
          await expectVersionConflict(kind.put(store, kind.make(ALICE, 3), v1.version));
          await expectVersionConflict(kind.put(store, kind.make(ALICE, 3), 5));
          expect(await kind.get(store, ALICE)).toEqual({ ...kind.make(ALICE, 2), version: 2 });
        });

        it("refuses to update a record that does not exist, and creates nothing", async () => {
          // Act / Assess
          await expectVersionConflict(kind.put(store, kind.make(ALICE, 1), 1));
          expect(await kind.get(store, ALICE)).toBeUndefined();
        });

        it("never lets a caller's object change what is stored", async () => {
          // Prepare
          const record = kind.make(ALICE, 1);
          const written = await kind.put(store, record, undefined);
          const expected = { ...kind.make(ALICE, 1), version: 1 };
          // Act: scribble over everything the caller holds
          scribble(record);
          scribble(written);
          const firstRead = await kind.get(store, ALICE);
          scribble(firstRead);
          // Assess
          expect(await kind.get(store, ALICE)).toEqual(expected);
        });

        it("keeps records of different users apart", async () => {
          // Prepare
          await kind.put(store, kind.make(ALICE, 1), undefined);
          await kind.put(store, kind.make(BOB, 2), undefined);
          // Act
          const elsewhere = await kind.put(store, kind.make(ALICE_ELSEWHERE, 3), undefined);
          // Assess
          expect(elsewhere.version).toBe(1);
          expect(await kind.get(store, ALICE)).toEqual({ ...kind.make(ALICE, 1), version: 1 });
          expect(await kind.get(store, BOB)).toEqual({ ...kind.make(BOB, 2), version: 1 });
          expect(await kind.get(store, ALICE_ELSEWHERE)).toEqual({
            ...kind.make(ALICE_ELSEWHERE, 3),
            version: 1,
          });
        });
      });
    }

    describe("reads of what is not there", () => {
      it("answers undefined or empty for an unknown user and channel", async () => {
        // Act / Assess
        expect(await store.getUser(ALICE)).toBeUndefined();
        expect(await store.getStatus(ALICE)).toBeUndefined();
        expect(await store.getChannel("ch-unknown")).toBeUndefined();
        expect(await store.loadUser(ALICE)).toEqual({ timelines: [], ooo: [] });
      });
    });

    describe("status records", () => {
      it("reads an omitted nextIsOoo as not out-of-office, and drops optional fields on update", async () => {
        // Prepare
        const v1 = await store.putStatus(
          aStatus(ALICE, { nextTransitionAt: T0, enqueuedFor: T0 }),
          undefined,
        );
        // Act
        const firstRead = await store.getStatus(ALICE);
        await store.putStatus(aStatus(ALICE), v1.version);
        const secondRead = await store.getStatus(ALICE);
        // Assess
        expect(firstRead?.nextIsOoo ?? false).toBe(false);
        expect(secondRead).toEqual({ ...aStatus(ALICE), version: 2 });
        expect(await store.dueBetween(0, T0 + 1)).toEqual([]);
      });
    });

    describe("getUserAndStatus", () => {
      it("holds the user's profile and status alone, and nobody else's", async () => {
        // Prepare: Alice with one of everything, Bob with a profile and status of his own
        const user = await store.putUser(aUser(ALICE, { sources: [ics] }), undefined);
        const status = await store.putStatus(aStatus(ALICE, dueAt(T0)), undefined);
        await store.putTimeline(aTimeline(ALICE, "work"), undefined);
        await store.createOutOfOffice(anAbsence(ALICE, "o1"));
        await store.putChannel(aChannel("ch-1"), undefined);
        await store.putUser(aUser(BOB), undefined);
        await store.putStatus(aStatus(BOB), undefined);
        // Act
        const found = await store.getUserAndStatus(ALICE);
        // Assess
        expect(found).toEqual({ user, status });
      });

      it("answers what there is of a user with no status, and nothing of an unknown one", async () => {
        // Prepare
        const user = await store.putUser(aUser(ALICE), undefined);
        // Act
        const alice = await store.getUserAndStatus(ALICE);
        const bob = await store.getUserAndStatus(BOB);
        // Assess
        expect(alice).toEqual({ user });
        expect(bob).toEqual({});
      });
    });

    describe("loadUser", () => {
      it("holds the profile, status, every timeline and every out-of-office entry, and no channel", async () => {
        // Prepare
        const user = await store.putUser(aUser(ALICE, { sources: [ics] }), undefined);
        const status = await store.putStatus(aStatus(ALICE, dueAt(T0)), undefined);
        const work = await store.putTimeline(aTimeline(ALICE, "work"), undefined);
        const home = await store.putTimeline(aTimeline(ALICE, "home"), undefined);
        await store.createOutOfOffice(anAbsence(ALICE, "o1"));
        await store.createOutOfOffice(anAbsence(ALICE, "o2"));
        await store.putChannel(aChannel("ch-1"), undefined);
        // Act
        const snapshot = await store.loadUser(ALICE);
        // Assess
        expect(snapshot.user).toEqual(user);
        expect(snapshot.status).toEqual(status);
        expect(sortBy(snapshot.timelines, (t) => t.sourceId)).toEqual([home, work]);
        expect(sortBy(snapshot.ooo, (o) => o.id)).toEqual([
          anAbsence(ALICE, "o1"),
          anAbsence(ALICE, "o2"),
        ]);
        expect(Object.keys(snapshot).sort()).toEqual(["ooo", "status", "timelines", "user"]);
      });

      it("holds only the user's own records", async () => {
        // Prepare
        for (const key of [ALICE, BOB, ALICE_ELSEWHERE]) {
          await store.putUser(aUser(key), undefined);
          await store.putStatus(aStatus(key), undefined);
          await store.putTimeline(aTimeline(key, "work"), undefined);
          await store.createOutOfOffice(anAbsence(key, "o1"));
          await snoozeKind.put(store, snoozeKind.make(key, 1), undefined);
        }
        // Act
        const snapshots = await Promise.all(
          [ALICE, BOB, ALICE_ELSEWHERE].map((k) => store.loadUser(k)),
        );
        // Assess
        for (const [i, key] of [ALICE, BOB, ALICE_ELSEWHERE].entries()) {
          const snapshot = snapshots[i];
          const owners = [
            snapshot?.user,
            snapshot?.status,
            ...(snapshot?.timelines ?? []),
            ...(snapshot?.ooo ?? []),
          ].map((r) => r?.key);
          expect(owners).toEqual([key, key, key, key]);
        }
      });

      it("gives a copy: changing it changes nothing stored", async () => {
        // Prepare
        await store.putUser(aUser(ALICE), undefined);
        await store.putTimeline(aTimeline(ALICE, "work"), undefined);
        await store.createOutOfOffice(anAbsence(ALICE, "o1"));
        const first = await store.loadUser(ALICE);
        // Act
        scribble(first);
        first.timelines.length = 0;
        first.ooo.length = 0;
        // Assess
        const second = await store.loadUser(ALICE);
        expect(second.user).toEqual({ ...aUser(ALICE), version: 1 });
        expect(second.timelines).toEqual([{ ...aTimeline(ALICE, "work"), version: 1 }]);
        expect(second.ooo).toEqual([anAbsence(ALICE, "o1")]);
      });
    });

    describe("deleteTimeline", () => {
      it("deletes one source's timeline only, and lets it be created afresh", async () => {
        // Prepare
        await store.putTimeline(aTimeline(ALICE, "work"), undefined);
        await store.putTimeline(aTimeline(ALICE, "home"), undefined);
        await store.putTimeline(aTimeline(BOB, "work"), undefined);
        // Act
        await store.deleteTimeline(ALICE, "work");
        const recreated = await store.putTimeline(aTimeline(ALICE, "work", T0 + 5), undefined);
        // Assess
        expect(recreated.version).toBe(1);
        expect((await store.loadUser(BOB)).timelines.map((t) => t.sourceId)).toEqual(["work"]);
        await store.deleteTimeline(ALICE, "work");
        expect((await store.loadUser(ALICE)).timelines.map((t) => t.sourceId)).toEqual(["home"]);
      });

      it("does nothing for a timeline that is not there, however often", async () => {
        // Prepare
        await store.putTimeline(aTimeline(ALICE, "home"), undefined);
        // Act
        await store.deleteTimeline(ALICE, "never");
        await store.deleteTimeline(ALICE, "never");
        await store.deleteTimeline(BOB, "home");
        // Assess
        expect((await store.loadUser(ALICE)).timelines.map((t) => t.sourceId)).toEqual(["home"]);
      });
    });

    describe("deleteUserData", () => {
      it("deletes the user's profile, status, timelines, entries and channels, and nobody else's", async () => {
        // Prepare: two users with one of everything, and a channel moved from Alice to Bob.
        for (const key of [ALICE, BOB]) {
          await store.putUser(aUser(key, { sources: [ics] }), undefined);
          await store.putStatus(aStatus(key, dueAt(T0)), undefined);
          await store.putTimeline(aTimeline(key, "work"), undefined);
          await store.createOutOfOffice(anAbsence(key, "o1"));
          await snoozeKind.put(store, snoozeKind.make(key, 1), undefined);
        }
        await store.putChannel(aChannel("alice-ch"), undefined);
        const moved = await store.putChannel(aChannel("moved-ch"), undefined);
        await store.putChannel({ ...aChannel("moved-ch"), key: { ...BOB } }, moved.version);
        await store.putChannel({ ...aChannel("bob-ch"), key: { ...BOB } }, undefined);
        const bobBefore = await store.loadUser(BOB);
        // Act
        const deleted = await store.deleteUserData(ALICE);
        // Assess: profile, status, timeline, entry and Alice's one channel are gone.
        expect(deleted).toBeGreaterThanOrEqual(5);
        expect(await store.loadUser(ALICE)).toEqual({ timelines: [], ooo: [] });
        expect(await store.getUser(ALICE)).toBeUndefined();
        expect(await store.getChannel("alice-ch")).toBeUndefined();
        expect(await store.dueBetween(T0, T0 + 1)).toEqual([aDueEntry(BOB, T0)]);
        expect(await store.loadUser(BOB)).toEqual(bobBefore);
        expect((await store.getChannel("moved-ch"))?.key).toEqual(BOB);
        expect((await store.getChannel("bob-ch"))?.key).toEqual(BOB);
      });

      it("answers 0 for a user it does not know, and a user can be created afresh after", async () => {
        // Prepare
        await store.putUser(aUser(ALICE), undefined);
        await store.deleteUserData(ALICE);
        // Act
        const again = await store.deleteUserData(ALICE);
        const recreated = await store.putUser(aUser(ALICE), undefined);
        // Assess
        expect(again).toBe(0);
        expect(recreated.version).toBe(1);
      });
    });

    describe("channelsOf", () => {
      it("answers the channels bound to the user, retired ones too, not one moved to another", async () => {
        // Prepare: Alice has two channels, one retired; one of hers moved to Bob; Bob has one.
        await store.putChannel(aChannel("alice-ch", "work"), undefined);
        await store.putChannel({ ...aChannel("alice-old", "work"), retiresAt: T0 }, undefined);
        const moved = await store.putChannel(aChannel("moved-ch"), undefined);
        await store.putChannel({ ...aChannel("moved-ch"), key: { ...BOB } }, moved.version);
        await store.putChannel({ ...aChannel("bob-ch"), key: { ...BOB } }, undefined);
        // Act
        const alices = await store.channelsOf(ALICE);
        // Assess
        const byId = (a: { channelId: string }, b: { channelId: string }) =>
          a.channelId.localeCompare(b.channelId);
        expect(alices.sort(byId)).toEqual([
          { ...aChannel("alice-ch", "work"), version: 1 },
          { ...aChannel("alice-old", "work"), retiresAt: T0, version: 1 },
        ]);
        expect((await store.channelsOf(BOB)).map((c) => c.channelId).sort()).toEqual([
          "bob-ch",
          "moved-ch",
        ]);
        expect(await store.channelsOf({ team: ALICE.team, user: "U-NOBODY" })).toEqual([]);
      });
    });

    describe("out-of-office entries", () => {
      it("creates an entry, refuses a second with the same id, and keeps the first", async () => {
        // Prepare
        await store.createOutOfOffice(anAbsence(ALICE, "o1"));
        // Act / Assess
        await expectVersionConflict(
          store.createOutOfOffice({ ...anAbsence(ALICE, "o1"), text: "Other" }),
        );
        await store.createOutOfOffice(anAbsence(BOB, "o1"));
        expect((await store.loadUser(ALICE)).ooo).toEqual([anAbsence(ALICE, "o1")]);
      });

      it("deletes an entry and returns it, then answers undefined", async () => {
        // Prepare
        await store.createOutOfOffice(anAbsence(ALICE, "o1"));
        await store.createOutOfOffice(anAbsence(ALICE, "o2"));
        await store.createOutOfOffice(anAbsence(BOB, "o1"));
        // Act
        const first = await store.deleteOutOfOffice(ALICE, "o1");
        const second = await store.deleteOutOfOffice(ALICE, "o1");
        const never = await store.deleteOutOfOffice(ALICE, "never");
        // Assess
        expect(first).toEqual(anAbsence(ALICE, "o1"));
        expect(second).toBeUndefined();
        expect(never).toBeUndefined();
        expect((await store.loadUser(ALICE)).ooo).toEqual([anAbsence(ALICE, "o2")]);
        expect((await store.loadUser(BOB)).ooo).toEqual([anAbsence(BOB, "o1")]);
        await store.createOutOfOffice(anAbsence(ALICE, "o1"));
      });
    });

    describe("dueBetween", () => {
      it("finds every status whose next transition lies in [from, to), across many users", async () => {
        // Prepare: 40 users over two teams, one transition each, 1 s apart; one without any
        const keys = Array.from({ length: 40 }, (_, i) => ({ team: `T${i % 2}`, user: `U${i}` }));
        await Promise.all(
          keys.map((key, i) => store.putStatus(aStatus(key, dueAt(T0 + i * 1_000)), undefined)),
        );
        await store.putStatus(aStatus(ALICE), undefined);
        // Act
        const due = await store.dueBetween(T0 + 5_000, T0 + 30_000);
        // Assess: 5 s included, 30 s excluded
        const expected = keys.slice(5, 30).map((key, i) => aDueEntry(key, T0 + (i + 5) * 1_000));
        expect([...due].sort(byKey)).toEqual(expected.sort(byKey));
      });

      it("includes the window's first millisecond and excludes its end, whatever the order", async () => {
        // Prepare
        const at = [T0 - 1, T0, T0 + 1, T0 + 999, T0 + 1_000];
        await Promise.all(
          at.map((t, i) =>
            store.putStatus(aStatus({ team: "T1", user: `U${i}` }, dueAt(t)), undefined),
          ),
        );
        // Act
        const due = await store.dueBetween(T0, T0 + 1_000);
        const single = await store.dueBetween(T0 + 999, T0 + 1_000);
        // Assess
        expect(due.map((s) => s.nextTransitionAt).sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual([
          T0,
          T0 + 1,
          T0 + 999,
        ]);
        expect(single.map((s) => s.key.user)).toEqual(["U3"]);
      });

      itKeeps("empty-window")("finds nothing in an empty window", async () => {
        // Prepare
        await store.putStatus(aStatus(ALICE, dueAt(T0)), undefined);
        // Act / Assess
        expect(await store.dueBetween(T0, T0)).toEqual([]);
        expect(await store.usersToPoll(0, 0)).toEqual([]);
      });

      it("answers whether each transition starts out-of-office and which one is already queued", async () => {
        // Prepare: Alice's next transition starts an absence and is queued; Bob's is neither
        await store.putStatus(
          aStatus(ALICE, { nextTransitionAt: T0, nextIsOoo: true, enqueuedFor: T0 }),
          undefined,
        );
        await store.putStatus(aStatus(BOB, dueAt(T0 + 1)), undefined);
        // Act
        const due = await store.dueBetween(T0, T0 + 2);
        // Assess
        expect([...due].sort(byKey)).toEqual(
          [
            { key: ALICE, nextTransitionAt: T0, nextIsOoo: true, enqueuedFor: T0 },
            aDueEntry(BOB, T0 + 1),
          ].sort(byKey),
        );
      });

      it("follows a transition that moved, and forgets one that was cleared", async () => {
        // Prepare
        const a = await store.putStatus(aStatus(ALICE, dueAt(T0)), undefined);
        const b = await store.putStatus(aStatus(BOB, dueAt(T0)), undefined);
        // Act
        await store.putStatus(aStatus(ALICE, dueAt(T0 + 60_000)), a.version);
        await store.putStatus(aStatus(BOB), b.version);
        // Assess
        expect(await store.dueBetween(T0, T0 + 1)).toEqual([]);
        expect((await store.dueBetween(T0, T0 + 60_001)).map((s) => s.key)).toEqual([ALICE]);
      });
    });

    describe("usersToPoll", () => {
      it("finds active users with a source whose poll phase lies in [from, to)", async () => {
        // Prepare
        const keys = Array.from({ length: 30 }, (_, i) => ({ team: `T${i % 3}`, user: `U${i}` }));
        await Promise.all(
          keys.map((key) => store.putUser(aUser(key, { sources: [ics] }), undefined)),
        );
        await store.putUser(aUser(ALICE, { mode: "paused", sources: [ics] }), undefined);
        await store.putUser(aUser(BOB), undefined);
        const phases = keys.map((key) => pollPhase(key));
        const from = [...phases].sort((x, y) => x - y)[10] ?? 0;
        const to = from + POLL_INTERVAL_MS / 3;
        // Act
        const all = await store.usersToPoll(0, POLL_INTERVAL_MS);
        const some = await store.usersToPoll(from, to);
        // Assess
        expect(all.map((u) => u.key).sort(keyOrder)).toEqual([...keys].sort(keyOrder));
        const expected = keys.filter((_, i) => (phases[i] ?? -1) >= from && (phases[i] ?? -1) < to);
        expect(some.map((u) => u.key).sort(keyOrder)).toEqual(expected.sort(keyOrder));
        // Whose sources, and the sources as stored: all the poll needs of a user.
        expect(all.find((u) => u.key.user === "U0")).toEqual({
          key: keys[0] ?? ALICE,
          sources: [ics],
        });
      });

      it("includes the phase's own millisecond and excludes the window's end", async () => {
        // Prepare
        await store.putUser(aUser(ALICE, { sources: [ics] }), undefined);
        const phase = pollPhase(ALICE);
        // Act
        const exact = await store.usersToPoll(phase, phase + 1);
        const endingThere = await store.usersToPoll(Math.max(0, phase - 1_000), phase);
        const startingAfter = await store.usersToPoll(phase + 1, phase + 1_000);
        // Assess
        expect(exact.map((u) => u.key)).toEqual([ALICE]);
        expect(endingThere).toEqual([]);
        expect(startingAfter).toEqual([]);
      });

      it("drops a user once paused or without sources, and finds one once it has a source", async () => {
        // Prepare
        const a = await store.putUser(aUser(ALICE, { sources: [ics] }), undefined);
        const b = await store.putUser(aUser(BOB, { sources: [ics] }), undefined);
        const c = await store.putUser(aUser(ALICE_ELSEWHERE), undefined);
        // Act
        await store.putUser(aUser(ALICE, { sources: [ics], mode: "paused" }), a.version);
        await store.putUser(aUser(BOB, { sources: [] }), b.version);
        await store.putUser(aUser(ALICE_ELSEWHERE, { sources: [ics] }), c.version);
        // Assess
        const polled = await store.usersToPoll(0, POLL_INTERVAL_MS);
        expect(polled.map((u) => u.key)).toEqual([ALICE_ELSEWHERE]);
      });

      it("drops a user whose team uninstalled the app", async () => {
        // Prepare
        const a = await store.putUser(aUser(ALICE, { sources: [ics] }), undefined);
        // Act
        await store.putUser(aUser(ALICE, { sources: [ics], uninstalledAt: T0 }), a.version);
        // Assess
        expect(await store.usersToPoll(0, POLL_INTERVAL_MS)).toEqual([]);
      });
    });

    describe("usersOfTeam", () => {
      it("finds every user of the team, whatever their mode or sources, and no one else", async () => {
        // Prepare
        await store.putUser(aUser(ALICE, { sources: [ics], mode: "paused" }), undefined);
        await store.putUser(aUser(BOB), undefined);
        await store.putUser(aUser(ALICE_ELSEWHERE, { sources: [ics] }), undefined);
        await store.putStatus(aStatus(BOB), undefined);
        // Act
        const team = await store.usersOfTeam(ALICE.team);
        const nobody = await store.usersOfTeam("T0NOBODY");
        // Assess
        expect(team.sort(byKey).map((u) => u.key)).toEqual([ALICE, BOB]);
        expect(nobody).toEqual([]);
      });
    });

    describe("usersWithId", () => {
      it("finds the user's profile in every team that has one, and no one else", async () => {
        // Prepare: Alice in two teams, Bob with only a status (no profile) in a third.
        await store.putUser(aUser(ALICE, { sources: [ics], mode: "paused" }), undefined);
        await store.putUser(aUser(ALICE_ELSEWHERE), undefined);
        await store.putUser(aUser(BOB), undefined);
        await store.putStatus(aStatus({ team: "T3", user: BOB.user }), undefined);
        // Act
        const alice = await store.usersWithId(ALICE.user);
        const bob = await store.usersWithId(BOB.user);
        const nobody = await store.usersWithId("U0NOBODY");
        // Assess
        expect(alice.sort(byKey).map((u) => u.key)).toEqual([ALICE, ALICE_ELSEWHERE]);
        expect(alice.find((u) => u.key.team === ALICE.team)?.mode).toBe("paused");
        expect(bob.map((u) => u.key)).toEqual([BOB]);
        expect(nobody).toEqual([]);
      });
    });
  });
}
