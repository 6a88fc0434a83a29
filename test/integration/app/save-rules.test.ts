import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contextOf } from "#lib/app/context";
import { InvalidInputError } from "#lib/app/errors";
import { saveRules } from "#lib/app/people/self-service";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { ManualClock } from "#lib/core/clock";
import { type StatusGateway, silentLog } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import { DynamoStore } from "#lib/store/dynamo-store";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";
import { MemoryQueue, T0 } from "./harness";
import { plainUser } from "./statusless-context";

// The settings page's save (saveRules): a bad rule is the same typed error the admin API maps to
// a 400, with the field's pointer under /rules, and nothing is saved; a calendar the stored rules
// named before it was removed does not block later saves; new working hours reconcile at once.

const lunch = { name: "Lunch", text: "At lunch", emoji: ":fork_and_knife:", priority: 15 };
const source = (id: string) => ({ id, kind: "ics" as const, urlShown: "https://cal.example/…" });

describe("saveRules", () => {
  let dynamo: LocalDynamo;
  let store: DynamoStore;
  const reconciled: UserKey[] = [];
  let n = 0;
  beforeAll(async () => {
    dynamo = await startDynalite();
    store = new DynamoStore(dynamo.client, dynamo.tableName);
  });
  afterAll(async () => dynamo?.close());
  const ctx = () =>
    contextOf(
      {
        store,
        gateway: {} as StatusGateway,
        transitionQueue: new MemoryQueue(),
        clock: new ManualClock(T0),
        log: silentLog,
        tokens: new LocalTokenVault(Buffer.alloc(32, 3)),
      },
      async (key) => {
        reconciled.push(key);
        return { kind: "nothing" } as never;
      },
    );
  const newUser = async (sources: string[], rules: Record<string, unknown> = {}) => {
    const key = { team: "TSAVE", user: `U${++n}` };
    await store.putUser({ ...plainUser(key, T0, sources.map(source)), rules }, undefined);
    return key;
  };
  const refusal = async (key: UserKey, rules: unknown) => {
    try {
      await saveRules(ctx(), key, rules);
    } catch (error: unknown) {
      if (error instanceof InvalidInputError)
        return { pointer: error.pointer, message: error.message };
      throw error;
    }
    throw new Error("saved");
  };

  it("refuses a bad rule with its pointer and keeps what was stored", async () => {
    const key = await newUser(["work"], { custom: [lunch] });
    expect(await refusal(key, { custom: [lunch, { ...lunch, name: "lunch" }] })).toEqual({
      pointer: "/rules/custom/1/name",
      message: 'name "lunch" is taken; each custom status needs its own name',
    });
    expect(await refusal(key, { skipCalendars: ["home"] })).toEqual({
      pointer: "/rules/skipCalendars/0",
      message: 'no calendar "home"; this person\'s calendars are: work',
    });
    expect((await store.getUser(key))?.rules).toEqual({ custom: [lunch] });
  });

  it("accepts a calendar the stored rules already named, though it was removed since", async () => {
    const key = await newUser(["work"], { skipCalendars: ["family"] });
    await saveRules(ctx(), key, { skipCalendars: ["family"], skipNoGuests: true });
    expect((await store.getUser(key))?.rules).toEqual({
      skipCalendars: ["family"],
      skipNoGuests: true,
    });
    expect(await refusal(key, { skipCalendars: ["family", "gym"] })).toMatchObject({
      pointer: "/rules/skipCalendars/1",
    });
  });

  it("reconciles when the working hours change, not otherwise", async () => {
    const key = await newUser(["work"]);
    reconciled.length = 0;
    await saveRules(ctx(), key, { skipNoGuests: true });
    expect(reconciled).toEqual([]);
    await saveRules(ctx(), key, { workingHours: { start: "08:00", end: "16:00" } });
    expect(reconciled).toEqual([key]);
  });
});
