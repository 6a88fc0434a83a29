import { describe, expect, it } from "vitest";
import {
  formatLiveEvent,
  formatLogLine,
  ourProfileSets,
  type UnchangedOutcome,
} from "#lib/local/live-log";

const at = (iso: string) => Date.parse(iso);
const berlin = { timeZone: "Europe/Berlin" };

describe("formatLiveEvent", () => {
  it("prints a set with its emoji, text, end time and call count in the chosen zone", () => {
    // Prepare
    const event = {
      kind: "set" as const,
      at: at("2025-03-10T11:00:20.150Z"),
      user: "U001",
      text: "In a meeting",
      emoji: ":spiral_calendar_pad:",
      expiration: at("2025-03-10T11:01:40Z") / 1000,
      calls: 1,
    };
    // Act
    const line = formatLiveEvent(event, berlin);
    // Assess
    expect(line).toBe(
      '12:00:20 U001 set ":spiral_calendar_pad: In a meeting" until 12:01:40 (1 call)',
    );
  });

  it("shows the date of an until that falls on another day, and pluralises calls", () => {
    // Act
    const line = formatLiveEvent(
      {
        kind: "set",
        at: at("2025-03-10T22:30:00Z"),
        user: "U001",
        text: "Out of office until Wed 12 Mar",
        emoji: ":palm_tree:",
        expiration: at("2025-03-11T23:00:00Z") / 1000,
        calls: 2,
      },
      berlin,
    );
    // Assess
    expect(line).toBe(
      '23:30:00 U001 set ":palm_tree: Out of office until Wed 12 Mar" until 2025-03-12 00:00:00 (2 calls)',
    );
  });

  it.each<[UnchangedOutcome, string]>([
    [{ kind: "leave", reason: "manual override" }, "user set their own status — leaving it"],
    [{ kind: "leave", reason: "manual status" }, "manual status: left alone"],
    [{ kind: "leave", reason: "paused" }, "paused: leaving the status alone"],
    [{ kind: "leave", reason: "unknown user" }, "unknown user: nothing to update"],
    [
      { kind: "leave", reason: "the service refused this status (invalid_emoji)" },
      "the service refused this status: not sending it again (invalid_emoji)",
    ],
    [
      { kind: "leave", reason: "the profile could not be read (user_not_found)" },
      "could not read the profile: leaving it (user_not_found)",
    ],
    [{ kind: "leave", reason: "a reason not listed" }, "left alone (a reason not listed)"],
    [{ kind: "needs_reauth", code: "token_revoked" }, "token revoked: reconnect"],
    [
      { kind: "needs_reauth", code: "app_uninstalled" },
      "app uninstalled: the data will be deleted",
    ],
    [{ kind: "needs_reauth", code: "invalid_auth" }, "token refused: reconnect (invalid_auth)"],
    [{ kind: "conflict_retried_out" }, "could not update the status: too many conflicting writes"],
  ])("words an outcome that changes nothing by its reason: %j", (outcome, words) => {
    expect(
      formatLiveEvent(
        { kind: "unchanged", at: at("2025-03-10T11:03:02Z"), user: "U001", outcome },
        berlin,
      ),
    ).toBe(`12:03:02 U001 ${words}`);
  });

  it("prints clears and retries with the service's code", () => {
    expect(
      formatLiveEvent(
        { kind: "clear", at: at("2025-03-10T11:02:00Z"), user: "U002", calls: 1 },
        berlin,
      ),
    ).toBe("12:02:00 U002 cleared the status (1 call)");
    expect(
      formatLiveEvent(
        {
          kind: "retry",
          at: at("2025-03-10T11:02:00Z"),
          user: "U002",
          code: "ratelimited",
          retryAt: at("2025-03-10T11:02:30Z"),
        },
        berlin,
      ),
    ).toBe("12:02:00 U002 service said ratelimited — retrying at 12:02:30");
  });

  it("says when the service's own expiry cleared the status, with no call from us", () => {
    expect(
      formatLiveEvent(
        { kind: "expired", at: at("2025-03-10T11:01:40Z"), user: "U001", calls: 0 },
        berlin,
      ),
    ).toBe("12:01:40 U001 expired (service cleared it, 0 calls)");
  });
});

describe("formatLogLine", () => {
  it("prints a record as one line of time, level, message and key=value fields", () => {
    // Act
    const line = formatLogLine(
      "warn",
      "sync skipped: feed refused",
      { user: "U001", status: 404, note: "two words" },
      { ...berlin, at: at("2025-03-10T11:00:20Z") },
    );
    // Assess
    expect(line).toBe(
      '12:00:20 warning: sync skipped: feed refused user=U001 status=404 note="two words"',
    );
  });

  it("never prints tokens, secrets or signatures, however nested", () => {
    // Act
    const line = formatLogLine(
      "error",
      "handler failed",
      {
        token: "xoxp-123",
        request: { headers: { authorization: "Bearer xoxp-123" }, signingSecret: "abc" },
      },
      { timeZone: "UTC", at: 0 },
    );
    // Assess
    expect(line).not.toContain("xoxp-123");
    expect(line).not.toContain("abc");
    expect(line).toContain("token=[redacted]");
    expect(line.startsWith("00:00:00 error: handler failed ")).toBe(true);
  });
});

describe("ourProfileSets", () => {
  const set = (seq: number, user: string, app: string | null) => ({
    seq,
    method: "users.profile.set",
    user,
    app,
  });

  it("counts only our app's sets about the user, not the user's own calls with their token", () => {
    // Prepare: our set, the user's own status and clear, a read, another user, our next set
    const calls = [
      set(1, "U001", "A0PILOT"),
      set(2, "U001", null),
      set(3, "U001", null),
      { seq: 4, method: "users.profile.get", user: "U001", app: "A0PILOT" },
      set(5, "U002", "A0PILOT"),
      set(6, "U001", "A0OTHER"),
      set(7, "U001", "A0PILOT"),
    ];
    // Act
    const count = ourProfileSets(calls, { app: "A0PILOT", user: "U001" }, 1);
    // Assess
    expect(count).toBe(1);
  });

  it("counts every set of ours after the given call, none at or before it", () => {
    const calls = [set(1, "U001", "A0PILOT"), set(2, "U001", "A0PILOT"), set(3, "U001", "A0PILOT")];
    expect(ourProfileSets(calls, { app: "A0PILOT", user: "U001" }, 0)).toBe(3);
    expect(ourProfileSets(calls, { app: "A0PILOT", user: "U001" }, 2)).toBe(1);
    expect(ourProfileSets(calls, { app: "A0PILOT", user: "U001" }, 3)).toBe(0);
  });
});
