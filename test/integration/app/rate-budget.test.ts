import { describe, expect, it } from "vitest";
import { createUseCases } from "#lib/app/compose/use-cases";
import type { ReconcileOutcome } from "#lib/app/contracts";
import { silentLog } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import { DynamoRateBudget } from "#lib/store/dynamo-rate-budget";
import { dynaliteForFile } from "../../support/dynalite";
import { block, harness, MIN, T0 } from "./harness";

const dynamo = dynaliteForFile();

describe("the shared rate budget", () => {
  it("sets 30 users of one admin token at once and the other 10 once each, at their slot a minute and 2 s later", async () => {
    // Prepare: 30 meetings and 10 out-of-office periods all start at 09:00, one admin token.
    const h = harness(dynamo);
    h.clock.set(T0 - 10 * MIN);
    const writes: Array<{ user: string; at: number }> = [];
    const pilot = createUseCases({
      store: h.store,
      gateway: {
        setStatus: async (target, status) => {
          writes.push({ user: target.key.user, at: h.clock.now() });
          return h.gateway.setStatus(target, status);
        },
        readStatus: (target) => h.gateway.readStatus(target),
      },
      transitionQueue: h.queue,
      clock: h.clock,
      log: silentLog,
      tokens: h.vault,
      rateBudget: new DynamoRateBudget(dynamo.client, dynamo.tableName),
    });
    const meetings: UserKey[] = [];
    const away: UserKey[] = [];
    for (let i = 0; i < 40; i++) {
      const key = await h.addUser(`M${String(i).padStart(2, "0")}`, { adminTokenUser: "UADMIN" });
      if (i < 30) {
        await pilot.applyTimeline(key, [block(T0, T0 + 90 * MIN)], { sourceId: "work" });
        meetings.push(key);
      } else {
        await pilot.scheduleOutOfOffice(key, { start: T0, end: T0 + 600 * MIN });
        away.push(key);
      }
    }
    // Act: every transition fires at 09:00, meetings first; rescheduled ones run at their time.
    h.clock.set(T0);
    let due: Array<{ key: UserKey; outcome: ReconcileOutcome }> = await Promise.all(
      [...meetings, ...away].map(async (key) => ({ key, outcome: await pilot.reconcileUser(key) })),
    );
    const firstRound = due.map((d) => d.outcome.kind);
    for (let round = 0; round < 6; round++) {
      const later = due
        .flatMap((d) =>
          d.outcome.kind === "rescheduled" ? [{ key: d.key, at: d.outcome.at }] : [],
        )
        .sort((a, b) => a.at - b.at);
      if (later.length === 0) break;
      due = [];
      for (const { key, at } of later) {
        h.clock.set(at);
        due.push({ key, outcome: await pilot.reconcileUser(key) });
      }
    }
    // Assess
    expect(firstRound.filter((k) => k === "set")).toHaveLength(30);
    expect(firstRound.filter((k) => k === "rescheduled")).toHaveLength(10);
    const rescheduled = due.map((d) => d.outcome.kind);
    expect(rescheduled.filter((k) => k === "set")).toHaveLength(10);
    // Spec 8.1: never more than 30 users in any rolling minute.
    for (const first of writes) {
      const users = new Set(
        writes.filter((w) => w.at >= first.at && w.at < first.at + MIN).map((w) => w.user),
      );
      expect(users.size).toBeLessThanOrEqual(30);
    }
    expect(writes).toHaveLength(40);
    const late = writes.filter((w) => w.at > T0);
    expect(late.every((w) => w.at === T0 + MIN + 2_000)).toBe(true);
    // Each waiting user was queued once, for its slot, and never before.
    const retries = h.queue.sent.filter((s) => s.message.reason === "retry");
    expect(retries).toHaveLength(10);
    expect(retries.every((s) => s.message.at === T0 + MIN + 2_000)).toBe(true);
    // Every out-of-office status is out within the first two minutes.
    const writtenAt = new Map(writes.map((w) => [w.user, w.at]));
    for (const key of away) expect(writtenAt.get(key.user)).toBeLessThan(T0 + 2 * MIN);
  });
});
