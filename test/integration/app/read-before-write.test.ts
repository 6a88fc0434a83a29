import { describe, expect, it } from "vitest";
import type { StatusValue } from "#lib/core/types";
import { dynaliteForFile } from "../../support/dynalite";
import { block, harness, MIN, RecordingGateway, T0 } from "./harness";

/*
 * The reconciler reads the profile before every write, through a fake of our StatusGateway
 * port whose profile our writes change and the tests change as the user would. No event
 * reaches the reconciler unless a test sends one: the user's user_change was lost.
 */

const dynamo = dynaliteForFile();

const lunch: StatusValue = { text: "Lunch", emoji: ":taco:", expiration: 0 };
const seconds = (ms: number) => Math.floor(ms / 1000);

describe("read before write", () => {
  it("leaves a manual status whose user_change was lost, records the override and writes nothing", async () => {
    // Prepare: the meeting status is showing; the user replaces it with "Lunch", event lost.
    const h = harness(dynamo);
    const key = await h.addUser("V1");
    const meeting = block(T0 - MIN, T0 + 10 * MIN);
    const focus = block(T0 + 10 * MIN, T0 + 40 * MIN, "focus");
    await h.pilot.applyTimeline(key, [meeting, focus], { sourceId: "work" });
    h.gateway.userSets(key, lunch);
    // Act: the focus block starts.
    h.clock.set(focus.start);
    const outcome = await h.pilot.reconcileUser(key);
    // Assess
    expect(outcome).toEqual({ kind: "leave", reason: "manual override" });
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual(["In a meeting"]);
    expect(h.gateway.shown(key)).toEqual(lunch);
    const view = await h.pilot.getStatusView(key);
    expect(view?.override?.status).toEqual(lunch);
    expect(view?.actual).toEqual({ status: lunch, observedAt: focus.start, source: "read" });
  });

  it("does not clear a manual status when the meeting it replaced is cancelled", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("V2");
    await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    const away = { text: "Dentist", emoji: ":tooth:", expiration: seconds(T0 + 90 * MIN) };
    h.gateway.userSets(key, away);
    // Act
    h.clock.advance(5_000);
    await h.pilot.applyTimeline(key, [], { sourceId: "work" });
    // Assess
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual(["In a meeting"]);
    expect(h.gateway.shown(key)).toEqual(away);
    // The override ends at its expiration: the reconciler looks again then.
    const rec = await h.store.getStatus(key);
    expect(rec?.nextTransitionAt).toBe(away.expiration * 1000);
  });

  it("writes after reading its own status back, one read per write", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("V3");
    const meeting = block(T0 - MIN, T0 + 10 * MIN);
    const focus = block(T0 + 10 * MIN, T0 + 40 * MIN, "focus");
    await h.pilot.applyTimeline(key, [meeting, focus], { sourceId: "work" });
    // Act
    h.clock.set(focus.start);
    const second = await h.pilot.reconcileUser(key);
    h.clock.set(focus.end + MIN);
    const after = await h.pilot.reconcileUser(key);
    // Assess: the focus set went out; the focus status expired by itself, so nothing after.
    expect(second.kind).toBe("set");
    expect(after).toEqual({ kind: "nothing" });
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual(["In a meeting", "Focus time"]);
    expect(h.gateway.reads).toHaveLength(h.gateway.calls.length);
  });

  it("resumes once the user cleared the manual status, even when that event was lost too", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("V4");
    const meeting = block(T0 - MIN, T0 + 10 * MIN);
    const focus = block(T0 + 10 * MIN, T0 + 40 * MIN, "focus");
    await h.pilot.applyTimeline(key, [meeting], { sourceId: "work" });
    const brb = { text: "Back soon", emoji: ":coffee:", expiration: seconds(T0 + 5 * MIN) };
    h.gateway.userSets(key, brb);
    await h.pilot.applyTimeline(key, [meeting, focus], { sourceId: "work" });
    // Act: the manual status has expired (the service cleared it) when focus starts.
    h.gateway.userSets(key, { text: "", emoji: "", expiration: 0 });
    h.clock.set(focus.start);
    const outcome = await h.pilot.reconcileUser(key);
    // Assess
    expect(outcome.kind).toBe("set");
    expect(h.gateway.shown(key).text).toBe("Focus time");
  });

  it("is not undone by an older user_change arriving after the read", async () => {
    // Prepare: the meeting shows; the user set Lunch at 09:05 and cleared it at 09:06, and
    // neither event has arrived.
    const h = harness(dynamo);
    const key = await h.addUser("V5");
    const focus = block(T0 + 20 * MIN, T0 + 50 * MIN, "focus");
    await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    h.gateway.userSets(key, { text: "", emoji: "", expiration: 0 });
    // Act: at 09:08 the meeting is cancelled: the read finds the profile empty, so no clear.
    h.clock.set(T0 + 8 * MIN);
    await h.pilot.applyTimeline(key, [focus], { sourceId: "work" });
    // The 09:05 Lunch event arrives after that read.
    h.clock.advance(3_000);
    const late = await h.pilot.recordUserChange({
      eventId: "late-V5",
      eventTime: seconds(T0 + 5 * MIN),
      key,
      status: lunch,
    });
    h.clock.set(focus.start);
    const next = await h.pilot.reconcileUser(key);
    // Assess
    expect(late).toBe(true);
    expect(next.kind).toBe("set");
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual(["In a meeting", "Focus time"]);
    expect((await h.pilot.getStatusView(key))?.override).toBeUndefined();
  });

  it("reschedules like a failed write when the read fails with a retryable error", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("V6");
    h.gateway.readFailures.push(
      RecordingGateway.failure("ratelimited", { retryable: true, retryAfterS: 20 }),
    );
    // Act
    const first = await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], {
      sourceId: "work",
    });
    const early = await h.pilot.reconcileUser(key);
    h.clock.advance(20_000);
    const onTime = await h.pilot.reconcileUser(key);
    // Assess
    expect(first).toBeUndefined();
    expect(early).toEqual({ kind: "rescheduled", at: T0 + 20_000, code: "ratelimited" });
    expect(h.queue.sent).toContainEqual({
      message: { team: key.team, user: key.user, at: T0 + 20_000, reason: "retry" },
      delaySeconds: 20,
    });
    expect(onTime.kind).toBe("set");
    expect(h.gateway.calls).toHaveLength(1);
    // Nothing was sent, so nothing is left as an attempt.
    const rec = await h.store.getStatus(key);
    expect(rec?.state.attempts ?? []).toEqual([]);
  });

  it("stops the user's writes when the read says the token was revoked", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("V7");
    h.gateway.readFailures.push(RecordingGateway.failure("token_revoked", { final: true }));
    // Act
    await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    const again = await h.pilot.reconcileUser(key);
    // Assess
    expect(again).toEqual({ kind: "needs_reauth", code: "token_revoked" });
    expect(h.gateway.calls).toEqual([]);
  });

  it("writes from the observed events when the read fails for another reason", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("V8");
    h.gateway.readFailures.push(RecordingGateway.failure("invalid_arguments", {}));
    // Act
    const outcome = await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], {
      sourceId: "work",
    });
    // Assess
    expect(outcome).toBeUndefined();
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual(["In a meeting"]);
  });

  it("overwrites a manual status whose event was lost when verifyBeforeWrite is off", async () => {
    // Prepare
    const h = harness(dynamo, { verifyBeforeWrite: false });
    const key = await h.addUser("V9");
    const meeting = block(T0 - MIN, T0 + 10 * MIN);
    const focus = block(T0 + 10 * MIN, T0 + 40 * MIN, "focus");
    await h.pilot.applyTimeline(key, [meeting, focus], { sourceId: "work" });
    h.gateway.userSets(key, lunch);
    // Act
    h.clock.set(focus.start);
    await h.pilot.reconcileUser(key);
    // Assess
    expect(h.gateway.reads).toEqual([]);
    expect(h.gateway.shown(key).text).toBe("Focus time");
  });
});
