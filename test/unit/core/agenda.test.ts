import { describe, expect, it } from "vitest";
import { AGENDA_LIMIT, agendaOf, agendaWindow, occurrencesOf } from "#lib/core/agenda";
import type { Occurrence } from "#lib/core/types";

// What a sync keeps of a calendar for the settings page's "Today": the events that overlap its
// window, in start order, with only what the rules read of them.

const H = 3_600_000;
const T0 = Date.UTC(2026, 0, 5, 0, 0, 0);

const occurrence = (uid: string, start: number, end: number, extra: Partial<Occurrence> = {}) =>
  ({
    uid,
    start,
    end,
    allDay: false,
    summary: uid,
    attendeeCount: 1,
    ...extra,
  }) satisfies Occurrence;

describe("agendaOf", () => {
  it("keeps the events overlapping the window, by start, without what the rules never read", () => {
    // Prepare
    const all = [
      occurrence("after", T0 + 30 * H, T0 + 31 * H),
      occurrence("late", T0 + 10 * H, T0 + 11 * H, {
        location: "Room 1",
        recurrenceId: "x",
        sourceId: "s",
        guests: 0,
        online: true,
        busyStatus: "BUSY",
      }),
      occurrence("ended", T0 - 2 * H, T0),
      occurrence("running", T0 - H, T0 + H),
    ];
    // Act
    const kept = agendaOf(all, { from: T0, to: T0 + 24 * H });
    // Assess
    expect(kept).toEqual([
      {
        uid: "running",
        start: T0 - H,
        end: T0 + H,
        allDay: false,
        summary: "running",
        attendeeCount: 1,
      },
      {
        uid: "late",
        start: T0 + 10 * H,
        end: T0 + 11 * H,
        allDay: false,
        summary: "late",
        attendeeCount: 1,
        guests: 0,
        online: true,
        busyStatus: "BUSY",
      },
    ]);
  });

  it("keeps at most AGENDA_LIMIT events and cuts titles to 200 characters", () => {
    // Prepare: 301 events, one with a title of 250 emoji (each one code point, two UTF-16 units).
    const many = Array.from({ length: 301 }, (_, i) =>
      occurrence(`e${i}`, T0 + i * 60_000, T0 + i * 60_000 + 30_000, {
        summary: i === 0 ? "🍽".repeat(250) : `e${i}`,
      }),
    );
    // Act
    const kept = agendaOf(many, { from: T0, to: T0 + 24 * H });
    // Assess
    expect(kept.length).toBe(AGENDA_LIMIT);
    expect(AGENDA_LIMIT).toBe(300);
    expect(kept[0]?.summary).toBe("🍽".repeat(200));
    expect(kept.at(-1)?.uid).toBe("e299");
  });

  it("covers today until the next expansion: refresh window plus the longest day and lateness", () => {
    expect(agendaWindow(T0, T0 + H, 6 * H)).toEqual({ from: T0, to: T0 + H + 6 * H + 26 * H });
  });

  it("stamps each event with its calendar", () => {
    expect(occurrencesOf("cal", [occurrence("a", T0, T0 + H)])[0]?.sourceId).toBe("cal");
  });
});
