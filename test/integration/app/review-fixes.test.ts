import { describe, expect, it } from "vitest";
import { createUseCases } from "#lib/app/compose/use-cases";
import { InvalidInputError } from "#lib/app/errors";
import { type StatusStore, silentLog, VersionConflict } from "#lib/core/ports";
import type { StatusRecord } from "#lib/core/records";
import { ConflictError, StoreError } from "#lib/store/errors";
import { dynaliteForFile } from "../../support/dynalite";
import { gate } from "../../support/gate";
import { block, harness, MemoryQueue, MIN, RecordingGateway, T0 } from "./harness";

const dynamo = dynaliteForFile();

const EMPTY = { text: "", emoji: "", expiration: 0 };
const WORK = { id: "work", url: "https://cal.example/work.ics", kind: "ics" } as const;
const seconds = (ms: number) => Math.floor(ms / 1000);

describe("writes in flight", () => {
  it("clears a meeting cancelled while its status was being set, right after the set lands", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("F1");
    const meeting = block(T0 + 10 * MIN, T0 + 40 * MIN);
    await h.pilot.applyTimeline(key, [meeting], { sourceId: "work" });
    h.clock.set(meeting.start);
    const [sent, lands] = [gate(), gate()];
    h.gateway.hold = { begun: sent.open, until: lands.opened };
    // Act: the set is in flight when the calendar drops the meeting.
    const setting = h.pilot.reconcileUser(key);
    await sent.opened;
    const cancelled = await h.pilot.applyTimeline(key, [], { sourceId: "work" });
    lands.open();
    await setting;
    // Assess
    expect(cancelled).toBeUndefined();
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual(["In a meeting", ""]);
    expect(h.gateway.calls.at(-1)?.status).toEqual(EMPTY);
    // A message a second later covers a sender that dies before deciding again.
    expect(h.queue.sent.map((s) => [s.message.reason, s.delaySeconds])).toContainEqual([
      "retry",
      1,
    ]);
  });

  it("takes the echo of a set whose call timed out after the service applied it as ours", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("F2");
    const meeting = block(T0 - MIN, T0 + 30 * MIN);
    h.gateway.failuresAfterApplying.push(RecordingGateway.failure("timeout", { retryable: true }));
    const first = await h.pilot.applyTimeline(key, [meeting], { sourceId: "work" });
    // Act: the echo arrives, then the meeting is cancelled.
    h.clock.advance(2_000);
    await h.pilot.recordUserChange({
      eventId: "echo-F2",
      eventTime: seconds(h.clock.now()),
      key,
      status: { text: meeting.text, emoji: meeting.emoji, expiration: meeting.expiration },
    });
    await h.pilot.applyTimeline(key, [], { sourceId: "work" });
    // Assess
    expect(first).toBeUndefined();
    const view = await h.pilot.getStatusView(key);
    expect(view?.override).toBeUndefined();
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual(["In a meeting", ""]);
  });

  it("clears a cancelled meeting whose set failed with internal_error even when no echo came", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("F3");
    h.gateway.failuresAfterApplying.push(
      RecordingGateway.failure("internal_error", { retryable: true }),
    );
    await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    // Act: the meeting is cancelled; the clear goes out when the backoff allows.
    await h.pilot.applyTimeline(key, [], { sourceId: "work" });
    h.clock.advance(15_000);
    await h.pilot.reconcileUser(key);
    // Assess
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual(["In a meeting", ""]);
  });

  it("keeps the claim and rethrows when the service applied the write but recording it failed", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("F4");
    const meeting = block(T0 - MIN, T0 + 30 * MIN);
    await h.pilot.applyTimeline(key, [], { sourceId: "work" });
    // The claim is written; recording the write fails.
    const failing = failingStatusWrites(h.store, 1);
    const pilot = createUseCases({
      store: failing,
      gateway: h.gateway,
      transitionQueue: h.queue,
      clock: h.clock,
      log: silentLog,
      tokens: h.vault,
    });
    await h.store.putTimeline(
      { key, sourceId: "work", blocks: [meeting], version: 0, updatedAt: T0 },
      1,
    );
    // Act
    const error = await pilot.reconcileUser(key).catch((e: unknown) => e);
    h.clock.advance(1_000);
    await h.pilot.recordUserChange({
      eventId: "echo-F4",
      eventTime: seconds(h.clock.now()),
      key,
      status: { text: meeting.text, emoji: meeting.emoji, expiration: meeting.expiration },
    });
    // Assess
    expect(error).toBeInstanceOf(StoreError);
    const view = await h.pilot.getStatusView(key);
    expect(view?.override).toBeUndefined();
    expect(view?.lastWritten?.text).toBe("In a meeting");
    expect(h.gateway.calls).toHaveLength(1);
  });

  it("keeps a manual status set while our write was being recorded", async () => {
    // Prepare: the write takes 1.5 s between send and record.
    const h = harness(dynamo);
    const key = await h.addUser("F5");
    const meeting = block(T0, T0 + 30 * MIN);
    const focus = block(T0 + 30 * MIN, T0 + 60 * MIN, "focus");
    await h.pilot.applyTimeline(key, [], { sourceId: "work" });
    const slow = {
      setStatus: async (...args: Parameters<RecordingGateway["setStatus"]>) => {
        const out = await h.gateway.setStatus(...args);
        h.clock.advance(1_500);
        return out;
      },
      readStatus: (...args: Parameters<RecordingGateway["readStatus"]>) =>
        h.gateway.readStatus(...args),
    };
    const pilot = createUseCases({
      store: h.store,
      gateway: slow,
      transitionQueue: h.queue,
      clock: h.clock,
      log: silentLog,
      tokens: h.vault,
    });
    await pilot.applyTimeline(key, [meeting, focus], { sourceId: "work" });
    // Act: the user set "Lunch" one second after our send; its event arrives after the record.
    h.gateway.userSets(key, { text: "Lunch", emoji: ":taco:", expiration: 0 });
    await pilot.recordUserChange({
      eventId: "lunch-F5",
      eventTime: seconds(T0) + 1,
      key,
      status: { text: "Lunch", emoji: ":taco:", expiration: 0 },
    });
    h.clock.set(focus.start);
    const outcome = await pilot.reconcileUser(key);
    // Assess
    expect(outcome).toEqual({ kind: "leave", reason: "manual override" });
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual(["In a meeting"]);
  });
});

describe("calendar sources", () => {
  it("stops showing a calendar's blocks once the user removed it, and deletes its timeline", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("S1");
    await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    // Act
    await h.pilot.upsertUser({
      key,
      tz: "Europe/Berlin",
      token: "xoxp-S1",
      sources: [],
      mode: "auto",
    });
    h.clock.advance(MIN);
    const outcome = await h.pilot.reconcileUser(key);
    // Assess
    expect(outcome).toEqual({ kind: "nothing" });
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual(["In a meeting", ""]);
    expect((await h.store.loadUser(key)).timelines).toEqual([]);
  });

  it("drops the timeline of a source whose address changed, and skips one for an unknown source", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("S2", { sources: [WORK] });
    await h.pilot.applyTimeline(key, [block(T0 + 10 * MIN, T0 + 30 * MIN)], { sourceId: "work" });
    // Act
    await h.pilot.upsertUser({
      key,
      tz: "Europe/Berlin",
      token: "xoxp-S2",
      sources: [{ ...WORK, url: "https://cal.example/moved.ics" }],
      mode: "auto",
    });
    await h.pilot.applyTimeline(key, [block(T0, T0 + 30 * MIN)], { sourceId: "gone" });
    // Assess
    const snap = await h.store.loadUser(key);
    expect(snap.timelines).toEqual([]);
    expect(h.gateway.calls).toEqual([]);
  });
});

describe("the minute tick", () => {
  it("re-enqueues a transition whose message was lost, however long ago it was due", async () => {
    // Prepare: a transition enqueued, then its message lost (never reconciled).
    const h = harness(dynamo);
    h.clock.set(T0 - 10 * MIN);
    const key = await h.addUser("K1");
    const meeting = block(T0, T0 + 30 * MIN);
    await h.pilot.applyTimeline(key, [meeting], { sourceId: "work" });
    h.clock.set(T0 - 30_000);
    await h.pilot.tick();
    // The tick sees every user of this shared table: look at this one's messages only.
    const mine = () => h.queue.sent.filter((s) => s.message.user === "K1");
    const queued = mine().length;
    // Act
    h.clock.set(T0 + 60_000);
    await h.pilot.tick();
    const within = mine().length - queued;
    h.clock.set(T0 + 20 * MIN);
    await h.pilot.tick();
    // Assess
    expect(queued).toBe(1);
    expect(within).toBe(0);
    expect(mine()).toHaveLength(2);
    expect(mine().at(-1)).toMatchObject({ message: { at: meeting.start }, delaySeconds: 0 });
  });
});

describe("retries and conflicts", () => {
  it("drops a retry whose time has passed when the next decision needs no write", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("R1");
    h.gateway.failures.push(
      RecordingGateway.failure("ratelimited", { retryable: true, retryAfterS: 30 }),
    );
    await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 2 * MIN)], { sourceId: "work" });
    const before = (await h.store.getStatus(key))?.state.retry;
    // Act: the block is gone by the time the retry is due.
    h.clock.advance(5 * MIN);
    const outcome = await h.pilot.reconcileUser(key);
    // Assess
    expect(before?.code).toBe("ratelimited");
    expect(outcome).toEqual({ kind: "nothing" });
    expect((await h.store.getStatus(key))?.state.retry).toBeUndefined();
  });

  it("throws a conflict when a timeline write keeps losing races", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("R2");
    const store: StatusStore = Object.assign(Object.create(h.store) as StatusStore, {
      putTimeline: async () => {
        throw new ConflictError("USER#x", "TIMELINE#work", 0);
      },
    });
    const pilot = createUseCases({
      store,
      gateway: h.gateway,
      transitionQueue: new MemoryQueue(),
      clock: h.clock,
      log: silentLog,
      tokens: h.vault,
      options: { maxConflictRetries: 3 },
    });
    // Act
    const error = await pilot
      .applyTimeline(key, [block(T0, T0 + MIN)], { sourceId: "work" })
      .catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(VersionConflict);
    expect(h.gateway.calls).toEqual([]);
  });
});

describe("scheduled out-of-office input", () => {
  it.each([
    [{ text: "   " }, "/text"],
    [{ emoji: "" }, "/emoji"],
  ])("refuses blank text or emoji %j with a pointer", async (extra, pointer) => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser(`O-${pointer}`);
    // Act
    const error = await h.pilot
      .scheduleOutOfOffice(key, { start: T0, end: T0 + 60 * MIN, ...extra })
      .catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).pointer).toBe(pointer);
  });

  it("takes a text of the service's 100 characters, as the admin API and /ooo do, and no more", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("O-limit");
    const at = (n: number) => ({ start: T0, end: T0 + 60 * MIN, text: "x".repeat(n) });
    // Act
    const longest = await h.pilot.scheduleOutOfOffice(key, at(100));
    const over = await h.pilot.scheduleOutOfOffice(key, at(101)).catch((e: unknown) => e);
    // Assess
    expect(longest.text).toHaveLength(100);
    expect(over).toBeInstanceOf(InvalidInputError);
    expect((over as InvalidInputError).pointer).toBe("/text");
  });
});

/** The real store, whose status writes fail (as DynamoDB throttling would) after `ok` succeed. */
function failingStatusWrites(store: StatusStore, ok: number): StatusStore {
  let left = ok;
  return Object.assign(Object.create(store) as StatusStore, {
    putStatus: async (rec: StatusRecord, expected: number | undefined) => {
      if (left-- <= 0) throw new StoreError("throttled", "dynamodb_failed");
      return store.putStatus(rec, expected);
    },
  });
}
