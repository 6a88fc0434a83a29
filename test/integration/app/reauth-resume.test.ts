import { describe, expect, it } from "vitest";
import type { UpsertUserInput } from "#lib/app/contracts";
import { emulatorPilot, useEmulatorStack } from "./emulator-harness";
import { block, MIN, T0 } from "./harness";

/**
 * A user whose token the service refused for good is stopped (needsReauth) until a new token
 * is stored. Storing it must resume them at once, from the timeline already stored: the feed
 * has not changed, so no sync would apply it again before its 6-hour refresh.
 */

const stack = useEmulatorStack();
const WORK = { id: "work", url: "https://cal.example/work.ics", kind: "ics" } as const;
const profileOf = (user: string) => stack.emulator.state().profiles[user];

const member = (token: string): UpsertUserInput => ({
  key: { team: "T0CONF", user: "U0MEMBER" },
  tz: "Europe/Berlin",
  token,
  sources: [WORK],
  mode: "auto",
});

describe("storing a new token for a user who must authorise again", () => {
  it("shows the status the stored timeline wants now, without waiting for a sync or a tick", async () => {
    // Prepare: the meeting's timeline is stored, and the revoked token stops the user.
    stack.clock.set(T0);
    const pilot = emulatorPilot(stack);
    const key = member("").key;
    await pilot.upsertUser(member("xoxp-revoked-0001"));
    const meeting = block(T0 - MIN, T0 + 30 * MIN);
    await pilot.applyTimeline(key, [meeting], { sourceId: "work" });
    const stopped = await pilot.getStatusView(key);
    stack.clock.set(T0 + 5 * MIN);
    // Act
    await pilot.upsertUser(member("xoxp-member-0001"));
    // Assess
    expect(stopped?.needsReauth?.code).toBe("token_revoked");
    expect((await pilot.getStatusView(key))?.needsReauth).toBeUndefined();
    const profile = profileOf("U0MEMBER");
    expect([profile?.status_text, profile?.status_emoji, profile?.status_expiration]).toEqual([
      "In a meeting",
      ":spiral_calendar_pad:",
      (T0 + 30 * MIN) / 1000,
    ]);
  });
});
