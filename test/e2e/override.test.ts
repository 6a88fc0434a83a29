import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  advanceTo,
  type E2e,
  event,
  liveLog,
  profileOf,
  setCalls,
  startE2e,
  T0,
  userSetsStatus,
} from "./support";

const S = 1000;
const base = Math.ceil(T0 / S) * S;
const workshop = event("workshop", "Workshop", base + 60 * S, base + 300 * S);

let e: E2e;
/** The status the calendar gives the workshop, as we first wrote it. */
let ours = { text: "", emoji: "" };
beforeAll(async () => {
  e = await startE2e({ U002: { tz: "America/New_York", events: [workshop] } });
});
afterAll(() => e?.close());

describe("a status the user sets during a meeting", () => {
  it("is left alone while the meeting goes on", async () => {
    // Prepare
    await advanceTo(e, workshop.start + 2 * S);
    const written = await profileOf(e, "U002");
    ours = { text: written.status_text, emoji: written.status_emoji };
    // Act
    await advanceTo(e, workshop.start + 30 * S);
    // No status_expiration, as the chat client sends it: the user's status does not expire.
    await userSetsStatus(e, "U002", { status_text: "Lunch", status_emoji: ":sandwich:" });
    await advanceTo(e, workshop.start + 120 * S);
    // Assess
    expect(written.status_expiration).toBe(workshop.end / S);
    expect(ours.text).not.toBe("");
    expect(await profileOf(e, "U002")).toMatchObject({
      status_text: "Lunch",
      status_emoji: ":sandwich:",
      status_expiration: 0,
    });
    // Our one set, then the user's own: nothing from us after it.
    expect(await setCalls(e, "U002")).toHaveLength(2);
    // The event is acknowledged at once and acted on through the queue, a second later at most.
    expect(await liveLog(e)).toContainEqual(
      expect.stringMatching(/^11:00:3[01] U002 user set their own status — leaving it$/),
    );
  });

  it("gives way to the calendar again once the user clears it", async () => {
    // Act
    await userSetsStatus(e, "U002", { status_text: "", status_emoji: "" });
    await advance(e, 2 * S);
    // Assess
    const profile = await profileOf(e, "U002");
    expect(profile).toMatchObject({ status_text: ours.text, status_emoji: ours.emoji });
    expect(profile.status_expiration).toBe(workshop.end / S);
    expect(await setCalls(e, "U002")).toHaveLength(4);
    // The user's two calls were theirs, made with their own token: ours is one call.
    const line = (await liveLog(e)).at(-1) ?? "";
    expect(line).toMatch(/^11:02:0\d /);
    expect(line.slice("11:02:00 ".length)).toBe(
      `U002 set "${ours.emoji} ${ours.text}" until 11:04:01 (1 call)`,
    );
  });
});
