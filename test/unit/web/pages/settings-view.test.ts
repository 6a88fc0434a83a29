import { describe, expect, it } from "vitest";
import { DEFAULT_RULES } from "#lib/core/rules";
import type { Block } from "#lib/core/types";
import { dayIn, oooDayRange, rulesView, todayView } from "#lib/web/pages/settings-view";

// Days are the user's: Berlin is UTC+1 in winter and UTC+2 from 30 March 2025 (02:00 → 03:00).

const utc = (d: number, h: number, m = 0, month = 3) => Date.UTC(2025, month - 1, d, h, m);

const block = (
  start: number,
  end: number,
  text: string,
  kind: Block["kind"] = "meeting",
): Block => ({
  start,
  end,
  text,
  emoji: ":x:",
  kind,
  expiration: Math.floor(end / 1000),
});

describe("settings view", () => {
  it("takes the day in the user's zone, 23 hours long on the spring-forward day", () => {
    // Act / Assess: 23:30 UTC on 3 March is 00:30 on 4 March in Berlin.
    expect(dayIn(utc(3, 23, 30), "Europe/Berlin")).toEqual({ start: utc(3, 23), end: utc(4, 23) });
    expect(dayIn(utc(3, 23, 30), "UTC")).toEqual({ start: utc(3, 0), end: utc(4, 0) });
    expect(dayIn(utc(30, 12), "Europe/Berlin")).toEqual({ start: utc(29, 23), end: utc(30, 22) });
    expect(dayIn(utc(3, 12), "Not/AZone")).toEqual({ start: utc(3, 0), end: utc(4, 0) });
  });

  it("lists today's blocks, cut to the day, with what shows now and the next change", () => {
    // Prepare: Berlin, 10:15 local on 3 March; a trip from yesterday until tomorrow noon.
    const now = utc(3, 9, 15);
    const timeline = [
      block(utc(3, 13), utc(3, 15), "Focus", "focus"),
      block(utc(3, 9), utc(3, 10), "Standup"),
      block(utc(4, 9), utc(4, 10), "Tomorrow"),
      block(utc(2, 9), utc(2, 10), "Yesterday"),
    ];
    // Act
    const today = todayView(timeline, now, "Europe/Berlin");
    // Assess
    expect(today.blocks.map((b) => [b.text, b.start, b.end])).toEqual([
      ["Standup", utc(3, 9), utc(3, 10)],
      ["Focus", utc(3, 13), utc(3, 15)],
    ]);
    expect(today.current).toEqual({ text: "Standup", emoji: ":x:", until: utc(3, 10) });
    expect(today.next).toEqual({ at: utc(3, 10) });
  });

  it("names the next status when the next change starts one, and cuts a long block to today", () => {
    // Prepare
    const now = utc(3, 8);
    const timeline = [
      block(utc(2, 12), utc(4, 12), "Away", "ooo"),
      block(utc(5, 9), utc(5, 10), "Later"),
    ];
    // Act
    const away = todayView(timeline, now, "Europe/Berlin");
    const free = todayView([block(utc(3, 11), utc(3, 12), "Review")], now, "Europe/Berlin");
    // Assess
    expect(away.blocks).toEqual([
      { start: utc(2, 23), end: utc(3, 23), text: "Away", emoji: ":x:", kind: "ooo" },
    ]);
    expect(away.next).toEqual({ at: utc(4, 12) });
    expect(free.current).toBeUndefined();
    expect(free.next).toEqual({ at: utc(3, 11), status: { text: "Review", emoji: ":x:" } });
  });

  it("reads the out-of-office days in the user's zone, last day included", () => {
    // Act / Assess: 10 to 14 March in Berlin is 9 March 23:00 UTC to 14 March 23:00 UTC.
    expect(oooDayRange("2025-03-10", "2025-03-14", "Europe/Berlin")).toEqual({
      start: utc(9, 23),
      end: utc(14, 23),
    });
    expect(oooDayRange("2025-03-10", "2025-03-10", "UTC")).toEqual({
      start: utc(10, 0),
      end: utc(11, 0),
    });
    // Across the spring-forward night: midnight on 31 March is 22:00 UTC.
    expect(oooDayRange("2025-03-29", "2025-03-30", "Europe/Berlin")).toEqual({
      start: utc(28, 23),
      end: utc(30, 22),
    });
  });

  it("refuses dates that do not exist, are not dates, or end before they start", () => {
    // Act / Assess
    for (const [first, last] of [
      ["2025-02-30", "2025-03-01"],
      ["2025-03-10", "2025-03-09"],
      ["10/03/2025", "2025-03-11"],
      ["", ""],
      ["2025-03-10", "2025-13-01"],
    ]) {
      expect({ first, last, range: oooDayRange(first ?? "", last ?? "", "UTC") }).toEqual({
        first,
        last,
        range: undefined,
      });
    }
  });

  it("shows the rules as they are", () => {
    // Act
    const view = rulesView(DEFAULT_RULES);
    // Assess
    expect(view).toEqual({
      kinds: {
        meeting: {
          text: "In a meeting",
          emoji: ":spiral_calendar_pad:",
          keywords: [],
          dnd: false,
        },
        focus: {
          text: "Focus time",
          emoji: ":headphones:",
          keywords: ["focus", "focus time", "deep work", "no meetings"],
          dnd: false,
        },
        ooo: {
          text: "Out of office",
          emoji: ":palm_tree:",
          keywords: ["out of office", "ooo", "vacation", "pto", "annual leave", "on leave"],
          dnd: false,
        },
      },
      showTitles: false,
      skipTentative: true,
      custom: [],
      skipNoGuests: false,
      skipCalendars: [],
      standing: "keep",
    });
  });
});
