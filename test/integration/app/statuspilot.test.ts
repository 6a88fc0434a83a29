import { describe, expect, it } from "vitest";
import type { SyncMessage } from "#lib/app/contracts";
import { InvalidInputError } from "#lib/app/errors";
import { dynaliteForFile } from "../../support/dynalite";
import { block, harness, MIN, RecordingGateway, T0 } from "./harness";

const dynamo = dynaliteForFile();

const EMPTY = { text: "", emoji: "", expiration: 0 };

describe("reconcile through timelines", () => {
  it("sets the meeting status with the block's end as expiration, once", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U1");
    const meeting = block(T0 - 5 * MIN, T0 + 25 * MIN);
    // Act
    await h.pilot.applyTimeline(key, [meeting], { sourceId: "work" });
    await h.pilot.applyTimeline(key, [meeting], { sourceId: "work" });
    await h.pilot.reconcileUser(key);
    // Assess
    expect(h.gateway.calls.map((c) => c.status)).toEqual([
      { text: "In a meeting", emoji: ":spiral_calendar_pad:", expiration: meeting.expiration },
    ]);
  });

  it("clears text and emoji together when the meeting is cancelled while showing", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U2");
    await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    // Act
    await h.pilot.applyTimeline(key, [], { sourceId: "work" });
    // Assess
    expect(h.gateway.calls.map((c) => c.status).at(-1)).toEqual(EMPTY);
    expect(h.gateway.calls).toHaveLength(2);
  });

  it("does not clear a block that expired by itself at its end", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U3");
    await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 10 * MIN)], { sourceId: "work" });
    // Act
    h.clock.advance(10 * MIN);
    const outcome = await h.pilot.reconcileUser(key);
    // Assess
    expect(outcome).toEqual({ kind: "nothing" });
    expect(h.gateway.calls).toHaveLength(1);
  });

  it("indexes the next transition and enqueues it at its exact second when it is close", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U4");
    const start = T0 + 40_500;
    // Act
    await h.pilot.applyTimeline(key, [block(start, start + 30 * MIN)], { sourceId: "work" });
    // Assess
    expect((await h.pilot.getStatusView(key))?.nextTransitionAt).toBe(start);
    expect(h.queue.sent).toEqual([
      {
        message: { team: key.team, user: key.user, at: start, reason: "transition" },
        delaySeconds: 41,
      },
    ]);
  });
});

describe("user_change events", () => {
  it("recognises the echo of our own set and ignores its duplicate", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U5");
    const meeting = block(T0 - MIN, T0 + 30 * MIN);
    await h.pilot.applyTimeline(key, [meeting], { sourceId: "work" });
    const echo = {
      eventId: "Ev-echo",
      eventTime: T0 / 1000,
      key,
      status: h.gateway.calls[0]?.status ?? EMPTY,
    };
    // Act
    h.clock.advance(1000);
    const first = await h.pilot.recordUserChange(echo);
    const second = await h.pilot.recordUserChange(echo);
    // Assess
    expect([first, second]).toEqual([true, false]);
    const view = await h.pilot.getStatusView(key);
    expect(view?.override).toBeUndefined();
    expect(view?.actual.source).toBe("ours");
    expect(h.gateway.calls).toHaveLength(1);
  });

  it("leaves a manual status through later transitions and resumes after the user clears it", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U6");
    const first = block(T0 - MIN, T0 + 10 * MIN);
    const second = block(T0 + 10 * MIN, T0 + 40 * MIN, "focus");
    await h.pilot.applyTimeline(key, [first, second], { sourceId: "work" });
    const manual = { text: "Lunch", emoji: ":taco:", expiration: 0 };
    // Act: the user's change is on the profile and in its event, as the service does.
    h.clock.advance(2000);
    h.gateway.userSets(key, manual);
    await h.pilot.recordUserChange({
      eventId: "Ev-m1",
      eventTime: (T0 + 2000) / 1000,
      key,
      status: manual,
    });
    h.clock.set(T0 + 10 * MIN);
    const during = await h.pilot.reconcileUser(key);
    h.clock.advance(5000);
    h.gateway.userSets(key, EMPTY);
    await h.pilot.recordUserChange({
      eventId: "Ev-m2",
      eventTime: h.clock.now() / 1000,
      key,
      status: EMPTY,
    });
    // Assess
    expect(during).toEqual({ kind: "leave", reason: "manual override" });
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual(["In a meeting", "Focus time"]);
  });

  it("ignores an event older than the newest applied observation", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U7");
    h.clock.advance(10_000);
    await h.pilot.recordUserChange({
      eventId: "Ev-new",
      eventTime: (T0 + 9000) / 1000,
      key,
      status: EMPTY,
    });
    // Act
    const applied = await h.pilot.recordUserChange({
      eventId: "Ev-old",
      eventTime: (T0 + 1000) / 1000,
      key,
      status: { text: "Old", emoji: ":x:", expiration: 0 },
    });
    // Assess
    expect(applied).toBe(true);
    expect((await h.pilot.getStatusView(key))?.override).toBeUndefined();
  });

  it("stores the time zone the event reports", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U8");
    // Act
    await h.pilot.recordUserChange({
      eventId: "Ev-tz",
      eventTime: T0 / 1000,
      key,
      tz: "America/New_York",
      status: EMPTY,
    });
    // Assess
    expect(await h.pilot.userZone(key)).toBe("America/New_York");
  });
});

describe("service failures", () => {
  it("reschedules at Retry-After when rate limited, without writing again before then", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U9");
    h.gateway.failures.push(
      RecordingGateway.failure("ratelimited", { retryable: true, retryAfterS: 30 }),
    );
    // Act
    await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    const early = await h.pilot.reconcileUser(key);
    h.clock.advance(30_000);
    const onTime = await h.pilot.reconcileUser(key);
    // Assess
    expect(early).toEqual({ kind: "rescheduled", at: T0 + 30_000, code: "ratelimited" });
    expect(h.queue.sent.some((s) => s.message.reason === "retry" && s.delaySeconds === 30)).toBe(
      true,
    );
    expect(onTime.kind).toBe("set");
    expect(h.gateway.calls).toHaveLength(1);
  });

  it("stops writing for a user whose token was revoked", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U10");
    h.gateway.failures.push(RecordingGateway.failure("token_revoked", { final: true }));
    await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    // Act
    const later = await h.pilot.reconcileUser(key);
    // Assess
    expect(later).toEqual({ kind: "needs_reauth", code: "token_revoked" });
    expect(h.gateway.calls).toHaveLength(0);
    expect((await h.pilot.getUser(key))?.needsReauth?.code).toBe("token_revoked");
  });

  it("does not resend a status the service refused as invalid", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U11");
    h.gateway.failures.push(RecordingGateway.failure("invalid_emoji_not_allowed", {}));
    // Act
    await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    const again = await h.pilot.reconcileUser(key);
    // Assess
    expect(again.kind).toBe("leave");
    expect(h.gateway.calls).toHaveLength(0);
  });
});

describe("out of office", () => {
  it("outranks the calendar and reads 'until' the last day in the user's zone", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U12");
    await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    // Act
    const entry = await h.pilot.scheduleOutOfOffice(key, {
      start: T0,
      end: Date.UTC(2025, 2, 7, 23, 0, 0),
    });
    // Assess
    expect(entry.text).toBe("Out of office");
    expect(h.gateway.calls.at(-1)?.status).toEqual({
      text: "Out of office until Fri, 7 Mar",
      emoji: ":palm_tree:",
      expiration: Date.UTC(2025, 2, 7, 23, 0, 0) / 1000,
    });
    expect(await h.pilot.listOutOfOffice(key)).toEqual([entry]);
  });

  it("clears the status when an out-of-office entry showing now is cancelled", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U13");
    const entry = await h.pilot.scheduleOutOfOffice(key, {
      start: T0,
      end: T0 + 120 * MIN,
      text: "Away",
    });
    // Act
    const cancelled = await h.pilot.cancelOutOfOffice(key, entry.id);
    const again = await h.pilot.cancelOutOfOffice(key, entry.id);
    // Assess
    expect([cancelled, again]).toEqual([true, false]);
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual([
      expect.stringMatching(/^Away until /),
      "",
    ]);
    expect(h.gateway.calls.at(-1)?.status).toEqual(EMPTY);
  });

  it("rejects a period that ends before it starts, naming the field", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U14");
    // Act
    const attempt = h.pilot.scheduleOutOfOffice(key, { start: T0 + MIN, end: T0 });
    // Assess
    await expect(attempt).rejects.toBeInstanceOf(InvalidInputError);
    await expect(attempt).rejects.toMatchObject({ pointer: "/end" });
  });
});

describe("users", () => {
  it("stores the token sealed and writes through the admin's token with the user parameter", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U15", { adminTokenUser: "UADMIN", token: "xoxp-admin-secret" });
    // Act
    await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    const stored = await h.store.getUser(key);
    // Assess
    expect(stored?.tokenSealed).not.toContain("xoxp-admin-secret");
    expect(await h.vault.open(stored?.tokenSealed ?? "", { ...key, field: "access_token" })).toBe(
      "xoxp-admin-secret",
    );
    expect(h.gateway.calls[0]?.target).toEqual({
      key,
      token: "xoxp-admin-secret",
      adminUser: "UADMIN",
    });
  });

  it("rejects an unknown time zone with a pointer to it", async () => {
    // Prepare
    const h = harness(dynamo);
    // Act
    const attempt = h.addUser("U16", { tz: "Mars/Olympus" });
    // Assess
    await expect(attempt).rejects.toMatchObject({ code: "invalid_input", pointer: "/tz" });
  });

  it("finds a push channel's user and opens its secret", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U17");
    // Act
    await h.pilot.putChannel("chan-17", { key, sourceId: "g", secret: "chan-token" });
    // Assess
    expect(await h.pilot.findChannel("chan-17")).toEqual({
      ...key,
      sourceId: "g",
      secret: "chan-token",
    });
  });

  it("keeps a channel's kind when it is bound again without one", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U17k");
    await h.pilot.putChannel("chan-17k", { key, sourceId: "g", secret: "t1", kind: "google" });
    // Act
    await h.pilot.putChannel("chan-17k", { key, sourceId: "g", secret: "t2" });
    // Assess
    expect(await h.pilot.findChannel("chan-17k")).toEqual({
      ...key,
      sourceId: "g",
      secret: "t2",
      kind: "google",
    });
  });

  it("records a source's sync and offers it to one poll run in three, synced or not", async () => {
    // Prepare
    const h = harness(dynamo);
    const key = await h.addUser("U18", {
      sources: [{ id: "cal", url: "https://cal.example/u18.ics", kind: "ics" }],
    });
    const runs = [0, 1, 2].map((k) => T0 + k * 5 * 60_000 + 400);
    const dueIn = async (at: number) =>
      (await h.pilot.sourcesDue(at)).filter((m) => m.team === key.team && m.user === key.user);
    // Act
    const before = await Promise.all(runs.map(dueIn));
    await h.pilot.recordSourceSync(key, "cal", { syncedAt: T0, etag: '"v1"' });
    const after = await Promise.all(runs.map(dueIn));
    // Assess: exactly one of three consecutive runs (15 minutes) finds it, the same one after;
    // each check carries what the poll index holds of the source, the new validator included
    const withoutKnown = (runs: SyncMessage[][]) =>
      runs.map((run) => run.map(({ known: _known, ...m }) => m));
    expect(withoutKnown(before).flat()).toEqual([{ ...key, sourceId: "cal", reason: "poll" }]);
    expect(withoutKnown(after)).toEqual(withoutKnown(before));
    // (the address sealed to its owner, as stored)
    expect(before.flat()[0]?.known).toEqual({ kind: "ics", urlSealed: expect.any(String) });
    expect(after.flat()[0]?.known).toEqual({
      kind: "ics",
      urlSealed: before.flat()[0]?.known?.urlSealed,
      syncedAt: T0,
      etag: '"v1"',
    });
    expect((await h.pilot.loadSource(key, "cal"))?.etag).toBe('"v1"');
  });
});
