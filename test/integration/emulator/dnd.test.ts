import { afterEach, describe, expect, it } from "vitest";
import { parseSnapshot, startEmulator } from "#emulator/server";
import { conformanceWorkspace } from "../service/harness";
import {
  APP_DND,
  BOT,
  BOT_DND_READ,
  call,
  closeAll,
  OTHER_READ,
  OWN_DND,
  PERSON,
  startHome,
  state,
  T0S,
} from "./home-harness";

// dnd.setSnooze, dnd.endSnooze and dnd.info over HTTP on a manual clock. Expectations restate
// the platform's public reference: snooze_remaining in seconds, snooze_* only for the caller,
// the end and remaining only while a snooze is on, scopes dnd:write / dnd:read, tiers 2 and 3.

afterEach(closeAll);

const NO_SCHEDULE = { dnd_enabled: false, next_dnd_start_ts: 1, next_dnd_end_ts: 1 };

describe("Do Not Disturb", () => {
  it("snoozes, replaces the duration, reports the time left, and ends on the emulator's clock", async () => {
    // Prepare
    const { emu, clock } = await startHome();
    // Act
    const set = await call(emu, "dnd.setSnooze", { num_minutes: "30" }, APP_DND, "form");
    clock.advance(10 * 60_000);
    const during = await call(emu, "dnd.info", {}, APP_DND);
    const replaced = await call(emu, "dnd.setSnooze", { num_minutes: 5 }, APP_DND);
    const seenDuring = await state(emu);
    clock.advance(5 * 60_000);
    const after = await call(emu, "dnd.info", {}, APP_DND);
    const endAfter = await call(emu, "dnd.endSnooze", {}, APP_DND);
    await fetch(`${emu.url}/_emulator/sweep`, { method: "POST" });
    const seenAfter = await state(emu);
    // Assess
    expect(set.body).toEqual({
      ok: true,
      snooze_enabled: true,
      snooze_endtime: T0S + 1800,
      snooze_remaining: 1800,
      snooze_is_indefinite: false,
    });
    expect(during.body).toEqual({
      ok: true,
      ...NO_SCHEDULE,
      snooze_enabled: true,
      snooze_endtime: T0S + 1800,
      snooze_remaining: 1200,
      snooze_is_indefinite: false,
    });
    expect(replaced.body).toMatchObject({ snooze_endtime: T0S + 600 + 300, snooze_remaining: 300 });
    expect(seenDuring.dnd).toEqual({ [PERSON]: { snooze_endtime: T0S + 900 } });
    expect(after.body).toEqual({
      ok: true,
      ...NO_SCHEDULE,
      snooze_enabled: false,
      snooze_is_indefinite: false,
    });
    expect(endAfter.body).toEqual({ ok: false, error: "snooze_not_active" });
    expect(seenAfter.dnd).toEqual({});
  });

  it("ends a snooze early; the person's own token and the app's token see the same snooze", async () => {
    // Prepare
    const { emu } = await startHome();
    await call(emu, "dnd.setSnooze", { num_minutes: 60 }, OWN_DND);
    // Act
    const seenByApp = await call(emu, "dnd.info", { user: PERSON }, APP_DND);
    const seenByOther = await call(emu, "dnd.info", { user: PERSON }, OTHER_READ);
    const seenByBot = await call(emu, "dnd.info", { user: PERSON }, BOT_DND_READ);
    const ended = await call(emu, "dnd.endSnooze", {}, APP_DND);
    const afterEnd = await call(emu, "dnd.info", {}, OWN_DND);
    // Assess
    expect(seenByApp.body).toMatchObject({ snooze_enabled: true, snooze_endtime: T0S + 3600 });
    // "All of the snooze_* properties will only be visible if the user being queried is also
    // the current user."
    expect(seenByOther.body).toEqual({ ok: true, ...NO_SCHEDULE });
    expect(seenByBot.body).toEqual({ ok: true, ...NO_SCHEDULE });
    expect(ended.body).toEqual({ ok: true, ...NO_SCHEDULE, snooze_enabled: false });
    expect(afterEnd.body).toMatchObject({ snooze_enabled: false });
    expect(afterEnd.body).not.toHaveProperty("snooze_endtime");
  });

  it("answers the documented errors: scopes, token types, arguments, unknown user", async () => {
    // Prepare
    const { emu } = await startHome();
    const snooze = (args: Record<string, unknown>, token = APP_DND) =>
      call(emu, "dnd.setSnooze", args, token);
    // Act
    const readOnly = await snooze({ num_minutes: 5 }, OTHER_READ);
    const endReadOnly = await call(emu, "dnd.endSnooze", {}, OTHER_READ);
    const infoUnscoped = await call(emu, "dnd.info", {}, "xoxp-member-0001");
    const aBot = await snooze({ num_minutes: 5 }, BOT);
    const none = await snooze({ num_minutes: 5 }, "");
    const missing = await snooze({});
    const invalid = await Promise.all(
      ["abc", "0", "-3", "1.5", "10m"].map((n) => snooze({ num_minutes: n })),
    );
    const tooLong = await snooze({ num_minutes: 525_601 });
    const longest = await snooze({ num_minutes: 525_600 });
    const unknown = await call(emu, "dnd.info", { user: "U0NOBODY" }, APP_DND);
    // Assess
    expect(readOnly.body).toEqual({
      ok: false,
      error: "missing_scope",
      needed: "dnd:write",
      provided: "dnd:read",
    });
    expect(endReadOnly.body).toMatchObject({
      ok: false,
      error: "missing_scope",
      needed: "dnd:write",
    });
    expect(infoUnscoped.body).toMatchObject({
      ok: false,
      error: "missing_scope",
      needed: "dnd:read",
    });
    expect(aBot.body).toEqual({ ok: false, error: "not_allowed_token_type" });
    expect(none.body).toEqual({ ok: false, error: "not_authed" });
    expect(missing.body).toEqual({ ok: false, error: "missing_duration" });
    for (const answer of invalid)
      expect(answer.body).toEqual({ ok: false, error: "invalid_arguments" });
    expect(tooLong.body).toEqual({ ok: false, error: "too_long" });
    expect(longest.body.ok).toBe(true);
    expect(unknown.body).toEqual({ ok: false, error: "user_not_found" });
  });

  it("limits dnd.setSnooze to tier 2 (20 a minute) and dnd.info to tier 3 (50 a minute)", async () => {
    // Prepare
    const { emu, clock } = await startHome();
    // Act
    const sets = [];
    for (let i = 0; i < 21; i++)
      sets.push(await call(emu, "dnd.setSnooze", { num_minutes: 5 }, APP_DND));
    const infos = [];
    for (let i = 0; i < 51; i++) infos.push(await call(emu, "dnd.info", {}, APP_DND));
    const ownToken = await call(emu, "dnd.setSnooze", { num_minutes: 5 }, OWN_DND);
    clock.advance(60_000);
    const later = await call(emu, "dnd.setSnooze", { num_minutes: 5 }, APP_DND);
    // Assess
    expect(sets.slice(0, 20).every((a) => a.body.ok === true)).toBe(true);
    expect(sets[20]?.status).toBe(429);
    expect(sets[20]?.body).toEqual({ ok: false, error: "ratelimited" });
    expect(Number(sets[20]?.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(infos.slice(0, 50).every((a) => a.body.ok === true)).toBe(true);
    expect(infos[50]?.status).toBe(429);
    // The limit is the app's; the person's own client is not the app.
    expect(ownToken.body.ok).toBe(true);
    expect(later.body.ok).toBe(true);
  });

  it("keeps snoozes, Home views and DMs across a snapshot", async () => {
    // Prepare
    const { emu, clock } = await startHome();
    await call(emu, "dnd.setSnooze", { num_minutes: 20 }, APP_DND);
    await call(
      emu,
      "views.publish",
      { user_id: PERSON, view: { type: "home", blocks: [{ type: "divider" }] } },
      BOT,
    );
    await call(emu, "chat.postMessage", { channel: PERSON, text: "saved" }, BOT);
    const saved = JSON.parse(JSON.stringify(emu.snapshot())) as unknown;
    const before = await state(emu);
    // Act
    const workspace = conformanceWorkspace();
    const read = parseSnapshot(saved, workspace);
    if (!read.ok) throw new Error(read.reason);
    const restored = await startEmulator({
      workspace,
      clock,
      expirySweepMs: 0,
      snapshot: read.snapshot,
    });
    try {
      const after = await state(restored);
      // Assess
      expect(after.dnd).toEqual(before.dnd);
      expect(after.home_views).toEqual(before.home_views);
      expect(after.messages).toEqual(before.messages);
      clock.advance(20 * 60_000);
      expect((await state(restored)).dnd).toEqual({});
    } finally {
      await restored.close();
    }
  });
});
