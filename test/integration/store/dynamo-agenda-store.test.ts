import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgendaEvent } from "#lib/core/agenda";
import { DynamoAgendaStore } from "#lib/store/dynamo-agenda-store";
import { DynamoStore } from "#lib/store/dynamo-store";
import { ALICE, aUser, BOB, T0 } from "../../contract/status-store.fixtures";
import { tablePerTest } from "../../support/dynalite-tables";

// The agendas the settings page's "Today" explains: one per calendar, put whole by each sync,
// read back for the user only, deleted with the calendar and with the user's data.

const freshTable = tablePerTest("agenda-store");
let store: DynamoAgendaStore;
let table: Awaited<ReturnType<typeof freshTable>>;

beforeEach(async () => {
  table = await freshTable();
  store = new DynamoAgendaStore(table.client, table.tableName);
});
afterEach(async () => {
  await table.cleanup();
});

const event = (uid: string, summary: string, extra: Partial<AgendaEvent> = {}): AgendaEvent => ({
  uid,
  start: T0,
  end: T0 + 1_800_000,
  allDay: false,
  summary,
  attendeeCount: 2,
  ...extra,
});

describe("DynamoAgendaStore", () => {
  it("answers each calendar's last agenda, of this user only", async () => {
    // Prepare
    await store.put({ key: ALICE, sourceId: "work", events: [event("a", "Old")], updatedAt: T0 });
    await store.put({
      key: ALICE,
      sourceId: "work",
      events: [event("a", "Lunch 🍽", { guests: 0, online: true, status: "CONFIRMED" })],
      updatedAt: T0 + 1,
    });
    await store.put({ key: ALICE, sourceId: "home", events: [], updatedAt: T0 + 2 });
    await store.put({ key: BOB, sourceId: "work", events: [event("b", "Bob's")], updatedAt: T0 });
    // Act
    const alices = await store.ofUser(ALICE);
    // Assess: the later put replaced the earlier; every member kept as put.
    expect(alices.sort((x, y) => x.sourceId.localeCompare(y.sourceId))).toEqual([
      { key: ALICE, sourceId: "home", events: [], updatedAt: T0 + 2 },
      {
        key: ALICE,
        sourceId: "work",
        events: [event("a", "Lunch 🍽", { guests: 0, online: true, status: "CONFIRMED" })],
        updatedAt: T0 + 1,
      },
    ]);
  });

  it("deletes one calendar's agenda, and nothing happens for one there is not", async () => {
    // Prepare
    await store.put({ key: ALICE, sourceId: "work", events: [event("a", "x")], updatedAt: T0 });
    await store.put({ key: ALICE, sourceId: "home", events: [event("h", "y")], updatedAt: T0 });
    // Act
    await store.delete(ALICE, "work");
    await store.delete(ALICE, "never");
    // Assess
    expect((await store.ofUser(ALICE)).map((a) => a.sourceId)).toEqual(["home"]);
  });

  it("goes with the user's data, and Bob's stays", async () => {
    // Prepare
    const users = new DynamoStore(table.client, table.tableName);
    for (const key of [ALICE, BOB]) {
      await users.putUser(aUser(key), undefined);
      await store.put({ key, sourceId: "work", events: [event("e", "z")], updatedAt: T0 });
    }
    // Act
    await users.deleteUserData(ALICE);
    // Assess
    expect(await store.ofUser(ALICE)).toEqual([]);
    expect((await store.ofUser(BOB)).length).toBe(1);
  });
});
