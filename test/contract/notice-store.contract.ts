import { describe, expect, it } from "vitest";
import type { NoticeStore, ProblemRecord } from "#lib/core/notice-store";

// The rules every NoticeStore keeps (lib/core/notice-store.ts): a problem's record is created
// only when absent, and rewritten only while its `openedAt` is the one the writer read, so two
// workers telling the same problem at once write it once; records stay with their person;
// a deleted record may be made again (the problem came back). Home records and team bot tokens
// are read back as written, the last write winning.

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const ALICE = { team: "T1", user: "U1" };
const BOB = { team: "T1", user: "U2" };

export interface NoticeStoreSetup {
  store: NoticeStore;
  cleanup(): Promise<void>;
}

const problem = (over: Partial<ProblemRecord> = {}): ProblemRecord => ({
  key: ALICE,
  id: "calendar_failing#ics-1",
  openedAt: T0,
  ...over,
});

export function describeNoticeStoreContract(
  name: string,
  make: () => Promise<NoticeStoreSetup>,
): void {
  describe(`NoticeStore contract: ${name}`, () => {
    const withStore = (test: (store: NoticeStore) => Promise<void>) => async () => {
      const { store, cleanup } = await make();
      try {
        await test(store);
      } finally {
        await cleanup();
      }
    };

    it(
      "creates a problem's record once: a second create of the same id is refused",
      withStore(async (store) => {
        // Act
        const first = await store.putProblem(problem());
        const second = await store.putProblem(problem({ openedAt: T0 + 1 }));
        // Assess
        expect([first, second]).toEqual([true, false]);
        expect(await store.problems(ALICE)).toEqual([problem()]);
      }),
    );

    it(
      "rewrites a record only while its openedAt is the one expected",
      withStore(async (store) => {
        // Prepare
        await store.putProblem(problem());
        // Act: two workers settle the same record; the second read it before the first wrote.
        const told = await store.putProblem(problem({ toldAt: T0 + 5 }), T0);
        const claimed = await store.putProblem(problem({ openedAt: T0 + 9 }), T0 + 1);
        const retold = await store.putProblem(problem({ openedAt: T0 + 9 }), T0);
        // Assess: the first won; the others found openedAt moved or not what they expected.
        expect([told, claimed, retold]).toEqual([true, false, true]);
        expect(await store.problems(ALICE)).toEqual([problem({ openedAt: T0 + 9 })]);
      }),
    );

    it(
      "refuses to rewrite a record that does not exist",
      withStore(async (store) => {
        expect(await store.putProblem(problem({ toldAt: T0 }), T0)).toBe(false);
        expect(await store.problems(ALICE)).toEqual([]);
      }),
    );

    it(
      "lists a person's records only, with what each says",
      withStore(async (store) => {
        // Prepare
        const a = problem({ id: "service_token", untold: "dms_off" });
        const b = problem({ id: "calendar_grant#g-1", toldAt: T0 + 2 });
        await store.putProblem(a);
        await store.putProblem(b);
        await store.putProblem({ ...problem(), key: BOB });
        // Act
        const listed = await store.problems(ALICE);
        // Assess
        expect(listed.sort((x, y) => x.id.localeCompare(y.id))).toEqual([b, a]);
        expect(await store.problems(BOB)).toEqual([{ ...problem(), key: BOB }]);
      }),
    );

    it(
      "deletes a record, after which the same problem may be created again",
      withStore(async (store) => {
        // Prepare
        await store.putProblem(problem());
        // Act
        await store.deleteProblem(ALICE, problem().id);
        await store.deleteProblem(ALICE, "never-there");
        const again = await store.putProblem(problem({ openedAt: T0 + 60_000 }));
        // Assess
        expect(again).toBe(true);
        expect(await store.problems(ALICE)).toEqual([problem({ openedAt: T0 + 60_000 })]);
      }),
    );

    it(
      "keeps the Home record last written for each person",
      withStore(async (store) => {
        // Act
        const before = await store.home(ALICE);
        await store.putHome({ key: ALICE, hash: "h1", publishedAt: T0 });
        await store.putHome({ key: ALICE, hash: "h2", publishedAt: T0 + 1 });
        // Assess
        expect(before).toBeUndefined();
        expect(await store.home(ALICE)).toEqual({ key: ALICE, hash: "h2", publishedAt: T0 + 1 });
        expect(await store.home(BOB)).toBeUndefined();
      }),
    );

    it(
      "keeps each team's bot token, the last install's winning",
      withStore(async (store) => {
        // Act
        await store.putTeamBot({ team: "T1", tokenSealed: "sealed-1", updatedAt: T0 });
        await store.putTeamBot({
          team: "T1",
          tokenSealed: "sealed-2",
          botUser: "U0BOT",
          updatedAt: T0 + 1,
        });
        // Assess
        expect(await store.teamBot("T1")).toEqual({
          team: "T1",
          tokenSealed: "sealed-2",
          botUser: "U0BOT",
          updatedAt: T0 + 1,
        });
        expect(await store.teamBot("T2")).toBeUndefined();
      }),
    );
  });
}
