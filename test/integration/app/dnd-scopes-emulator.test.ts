import { describe, expect, it } from "vitest";
import type { UserKey } from "#lib/core/types";
import { DynamoStore } from "#lib/store/dynamo-store";
import { emulatorPilot, useEmulatorStack } from "./emulator-harness";
import { block, MIN, T0 } from "./harness";

/*
 * Do Not Disturb for people whose token lacks `dnd:read` and `dnd:write` (the conformance
 * workspace's tokens have neither), over the emulator's HTTP API and dynalite: their statuses go
 * on, and they cost no DND calls (or, for a user set up by an administrator, one refused call).
 */

const stack = useEmulatorStack();
const TZ = "Europe/Berlin";
const focusDnd = (start: number, end: number) => ({ ...block(start, end, "focus"), dnd: true });
const lastSeq = () => stack.emulator.calls().at(-1)?.seq ?? 0;
const callsSince = (seq: number) =>
  stack.emulator
    .calls()
    .filter((c) => c.seq > seq)
    .map((c) => `${c.method} ${c.outcome}`);
const shown = (user: string) => stack.emulator.state().profiles[user]?.status_text;

async function setUp(key: UserKey, token: string, extra: { sessionEpoch?: number }) {
  const pilot = emulatorPilot(stack);
  await pilot.upsertUser({
    key,
    tz: TZ,
    token,
    sources: [{ id: "work", url: "https://cal.example/work.ics", kind: "ics" }],
    mode: "auto",
  });
  const store = new DynamoStore(stack.dynamo.client, stack.dynamo.tableName);
  const user = await store.getUser(key);
  if (user === undefined) throw new Error("no user");
  await store.putUser({ ...user, ...extra }, user.version);
  return { pilot, store };
}

describe("Do Not Disturb without the dnd scopes", () => {
  it("a person installed before Statuspilot asked for them gets statuses and no DND call", async () => {
    // Prepare: installed through the front door (a session epoch), no scopes on record.
    const key = { team: "T0CONF", user: "U0PRIMARY" };
    stack.clock.set(T0);
    const { pilot, store } = await setUp(key, "xoxp-primary-0001", { sessionEpoch: T0 - MIN });
    const first = focusDnd(T0 + MIN, T0 + 20 * MIN);
    const second = focusDnd(T0 + 30 * MIN, T0 + 40 * MIN);
    await pilot.applyTimeline(key, [first, second], { sourceId: "work" });
    const before = lastSeq();
    // Act
    stack.clock.set(first.start);
    const atFirst = await pilot.reconcileUser(key);
    stack.clock.set(second.start);
    const atSecond = await pilot.reconcileUser(key);
    // Assess
    expect([atFirst.kind, atSecond.kind]).toEqual(["set", "set"]);
    expect(shown("U0PRIMARY")).toBe("Focus time");
    expect(callsSince(before).filter((c) => c.startsWith("dnd."))).toEqual([]);
    expect((await store.loadUser(key)).snooze).toBeUndefined();
  });

  it("a user an administrator set up costs one refused DND call, then none", async () => {
    // Prepare: no install (no session epoch), so the service is asked once.
    const key = { team: "T0CONF", user: "U0OWNER" };
    stack.clock.set(T0 + 100 * MIN);
    const { pilot, store } = await setUp(key, "xoxp-owner-0001", {});
    const first = focusDnd(T0 + 101 * MIN, T0 + 120 * MIN);
    const second = focusDnd(T0 + 130 * MIN, T0 + 140 * MIN);
    await pilot.applyTimeline(key, [first, second], { sourceId: "work" });
    const before = lastSeq();
    // Act
    stack.clock.set(first.start);
    const atFirst = await pilot.reconcileUser(key);
    const refused = callsSince(before).filter((c) => c.startsWith("dnd."));
    const between = lastSeq();
    stack.clock.set(second.start);
    const atSecond = await pilot.reconcileUser(key);
    // Assess
    expect([atFirst.kind, atSecond.kind]).toEqual(["set", "set"]);
    expect(shown("U0OWNER")).toBe("Focus time");
    expect(refused).toEqual(["dnd.info missing_scope"]);
    expect(callsSince(between).filter((c) => c.startsWith("dnd."))).toEqual([]);
    expect((await store.getUser(key))?.grantedScopes).toEqual([]);
  });
});
