import { describe, expect, it } from "vitest";
import { claimWrite, initialStatusState } from "#lib/core/reconcile/state";
import { showsOurStatus } from "#lib/core/reconcile/user-change";
import { recordWrite, releaseWrite } from "#lib/core/reconcile/write-outcome";
import type { StatusState } from "#lib/core/records";
import type { StatusValue } from "#lib/core/types";

// Before a disconnect revokes the token (issue 28 item 1): is what the profile shows ours? The
// rule, restated: ours when its text and emoji together equal a status we wrote (applied, sent
// with an unknown outcome, or in flight); never when empty or expired.

const NOW = Date.UTC(2026, 11, 10, 9, 0, 0);
const S = (ms: number) => Math.floor(ms / 1000);
const focus: StatusValue = { text: "Focus time", emoji: ":headphones:", expiration: S(NOW) + 600 };
const meeting: StatusValue = { text: "In a meeting", emoji: ":calendar:", expiration: S(NOW) + 60 };
const EMPTY: StatusValue = { text: "", emoji: "", expiration: 0 };

const wroteFocus = (): StatusState => recordWrite(initialStatusState(), focus, NOW - 60_000);

describe("showsOurStatus", () => {
  const cases: [string, StatusState, StatusValue, boolean][] = [
    ["our last write", wroteFocus(), focus, true],
    ["our last write, its clear time changed", wroteFocus(), { ...focus, expiration: 0 }, true],
    [
      "an earlier write of ours",
      recordWrite(wroteFocus(), meeting, NOW - 30_000),
      { ...focus },
      true,
    ],
    [
      "a write whose outcome is unknown",
      releaseWrite(claimWrite(initialStatusState(), focus, NOW - 5_000), NOW - 5_000),
      focus,
      true,
    ],
    ["a write in flight", claimWrite(initialStatusState(), focus, NOW - 1_000), focus, true],
    ["our text with another emoji", wroteFocus(), { ...focus, emoji: ":brain:" }, false],
    ["our emoji with another text", wroteFocus(), { ...focus, text: "Thinking" }, false],
    ["a status we never wrote", wroteFocus(), { ...meeting }, false],
    ["nothing written yet", initialStatusState(), focus, false],
    ["an empty profile", wroteFocus(), EMPTY, false],
    ["our status, already expired", wroteFocus(), { ...focus, expiration: S(NOW) - 1 }, false],
  ];
  it.each(cases)("%s", (_name, state, shown, expected) => {
    expect(showsOurStatus(state, shown, NOW)).toBe(expected);
  });
});
