import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { generateFeed } from "#bench/fixtures/generate-feed";
import { systemWorkTimer } from "#lib/app/compose/system-clock";
import { ExpansionCutShortError } from "#lib/calendar/errors";
import { expand, expandPaced } from "#lib/calendar/expand";
import {
  EXPANSION_CPU_BUDGET_MS,
  EXPANSION_SLICE_MS,
  MAX_OCCURRENCES_PER_EVENT,
  MAX_OCCURRENCES_PER_FEED,
} from "#lib/calendar/work-budget";
import { SteppingWorkTimer } from "../../support/work-timer";
import { corpusDir, hasCorpus } from "../schema/corpus-root";

/**
 * A feed's work is bounded: occurrences per event near the window, occurrences per feed, and the
 * time its expansion holds the thread. Expectations are counted by hand from the rules written:
 * a MINUTELY series from the window's start has one instance a minute.
 */

const MIN = 60_000;
const DAY = 86_400_000;
/** Monday 2 March 2026, 00:00 UTC: the window's start. */
const FROM = Date.UTC(2026, 2, 2);
const TO = FROM + 14 * DAY;
const WINDOW = { from: FROM, to: TO, userZone: "UTC" };

const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]|\.\d{3}/g, "");

interface TestEvent {
  uid: string;
  start: number;
  minutes?: number;
  rrule?: string;
  extra?: string[];
}

function feedOf(events: TestEvent[]): string {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//work budget//EN"];
  for (const e of events) {
    lines.push(
      "BEGIN:VEVENT",
      `UID:${e.uid}`,
      "DTSTAMP:20260101T000000Z",
      `DTSTART:${stamp(e.start)}`,
      `DTEND:${stamp(e.start + (e.minutes ?? 30) * MIN)}`,
      ...(e.rrule ? [`RRULE:${e.rrule}`] : []),
      ...(e.extra ?? []),
      `SUMMARY:${e.uid}`,
      "END:VEVENT",
    );
  }
  lines.push("END:VCALENDAR", "");
  return lines.join("\r\n");
}

const standup: TestEvent = {
  uid: "standup",
  start: FROM + 9 * 60 * MIN,
  minutes: 15,
  rrule: "FREQ=DAILY;COUNT=5",
};

describe("the caps on one feed's expansion", () => {
  it("keeps an event's first instances up to its cap, and the other events whole", () => {
    // Arrange: a series every minute from the window's start, beside a real stand-up.
    const text = feedOf([
      standup,
      { uid: "every-minute", start: FROM, minutes: 1, rrule: "FREQ=MINUTELY" },
    ]);
    // Act
    const result = expand(text, { ...WINDOW, limits: { eventOccurrences: 50 } });
    // Assert: minutes 0 to 49 of the window, in order; the stand-up's five days all there.
    const minutely = result.occurrences.filter((o) => o.uid === "every-minute");
    expect(minutely.map((o) => o.start)).toEqual(
      Array.from({ length: 50 }, (_, i) => FROM + i * MIN),
    );
    expect(result.occurrences.filter((o) => o.uid === "standup")).toHaveLength(5);
    expect(result.truncated).toEqual({ limit: "event_occurrences", cap: 50 });
  });

  it("counts an event's RDATEs towards its cap", () => {
    // Arrange: one event with 30 RDATEs, an hour apart.
    const rdates = Array.from({ length: 30 }, (_, i) => stamp(FROM + (i + 1) * 60 * MIN));
    const text = feedOf([{ uid: "listed", start: FROM, extra: [`RDATE:${rdates.join(",")}`] }]);
    // Act
    const result = expand(text, { ...WINDOW, limits: { eventOccurrences: 10 } });
    // Assert: DTSTART and the first nine RDATEs.
    expect(result.occurrences.map((o) => o.start)).toEqual(
      Array.from({ length: 10 }, (_, i) => FROM + i * 60 * MIN),
    );
    expect(result.truncated?.limit).toBe("event_occurrences");
  });

  it("reads a feed up to its occurrence cap, in the order of the feed", () => {
    // Arrange: 30 events of 10 daily instances each, 300 in all.
    const events = Array.from({ length: 30 }, (_, i) => ({
      uid: `daily-${String(i).padStart(2, "0")}`,
      start: FROM + i * MIN,
      rrule: "FREQ=DAILY;COUNT=10",
    }));
    // Act
    const result = expand(feedOf(events), { ...WINDOW, limits: { feedOccurrences: 95 } });
    // Assert: the first nine events whole, five instances of the tenth, none of the rest.
    const perEvent = new Map<string, number>();
    for (const o of result.occurrences) perEvent.set(o.uid, (perEvent.get(o.uid) ?? 0) + 1);
    expect(result.occurrences).toHaveLength(95);
    expect([...perEvent.values()].slice(0, 9)).toEqual(Array(9).fill(10));
    expect(perEvent.get("daily-09")).toBe(5);
    expect(perEvent.has("daily-10")).toBe(false);
    expect(result.truncated).toEqual({ limit: "feed_occurrences", cap: 95 });
  });

  it("stops a feed whose expansion outlasts the CPU budget, keeping what it read first", () => {
    // Arrange: a stand-up, then a SECONDLY series from 2015 (ical.js would step 100,000 times
    // before giving it up); the timer moves 1 ms a reading, one reading a unit of work.
    const text = feedOf([
      standup,
      { uid: "every-second", start: Date.UTC(2015, 0, 1), minutes: 0, rrule: "FREQ=SECONDLY" },
    ]);
    const timer = new SteppingWorkTimer(1);
    // Act
    const result = expand(text, { ...WINDOW, limits: { timeBudgetMs: 300 }, pace: { timer } });
    // Assert: the budget is checked at each slice's end (20 ms), so it is overrun by one at most.
    expect(result.truncated).toEqual({ limit: "time_budget", cap: 300 });
    expect(result.occurrences.map((o) => o.uid)).toEqual(Array(5).fill("standup"));
    expect(result.spentMs).toBeGreaterThan(300);
    expect(result.spentMs).toBeLessThanOrEqual(300 + EXPANSION_SLICE_MS + 2);
    expect(result.skipped).toEqual([]);
  });

  it("counts CPU time, not the wall time other processes take", () => {
    // Arrange: 400 instances (two units of work each); on a machine where three quarters of
    // the wall time are other processes'.
    const text = feedOf([{ uid: "every-minute", start: FROM, minutes: 1, rrule: "FREQ=MINUTELY" }]);
    const limits = { eventOccurrences: 400, timeBudgetMs: 300 };
    const idle = new SteppingWorkTimer(1, 1);
    const loaded = new SteppingWorkTimer(1, 0.25);
    // Act
    const onIdle = expand(text, { ...WINDOW, limits, pace: { timer: idle } });
    const onLoaded = expand(text, { ...WINDOW, limits, pace: { timer: loaded } });
    // Assert
    expect(onIdle.truncated?.limit).toBe("time_budget");
    expect(onLoaded.truncated?.limit).toBe("event_occurrences");
    expect(onLoaded.occurrences).toHaveLength(400);
    expect(onLoaded.spentMs).toBeLessThan(300);
  });

  it("throws ExpansionCutShortError at the deadline it was given, whatever the budget", () => {
    // Arrange
    const text = feedOf([
      { uid: "every-second", start: Date.UTC(2015, 0, 1), minutes: 0, rrule: "FREQ=SECONDLY" },
    ]);
    const timer = new SteppingWorkTimer(1);
    // Act
    const run = () => expand(text, { ...WINDOW, pace: { timer, stopBy: 200 } });
    // Assert
    expect(run).toThrow(ExpansionCutShortError);
    expect(timer.elapsedMs()).toBeLessThan(210);
  });

  it("gives way to the event loop between slices, its pauses not counted as its time", async () => {
    // Arrange: the timer moves 1 ms a reading; a slice is 20 ms of it.
    const text = feedOf([{ uid: "every-minute", start: FROM, minutes: 1, rrule: "FREQ=MINUTELY" }]);
    const timer = new SteppingWorkTimer(1);
    let immediates = 0;
    const tick = () => {
      immediates++;
      if (immediates < 10_000) handle = setImmediate(tick);
    };
    let handle = setImmediate(tick);
    // Act
    const result = await expandPaced(text, {
      ...WINDOW,
      limits: { eventOccurrences: 400 },
      pace: { timer },
    });
    clearImmediate(handle);
    // Assert: 400 instances, about 400 units of work: a give-way every 20 units or so.
    expect(result.occurrences).toHaveLength(400);
    expect(timer.giveWays).toBeGreaterThanOrEqual(15);
    expect(immediates).toBeGreaterThanOrEqual(timer.giveWays - 1);
    expect(result.spentMs).toBeLessThan(timer.elapsedMs());
  });
});

describe("real calendars stay under every cap", () => {
  it("reads the bench's 20,000-event feed in full, well inside the budget", async () => {
    // Arrange: the generated Google-style feed, 1,200 series from years back (4.4 MB).
    const text = generateFeed({ events: 20_000, series: 1_200, windowStart: FROM });
    const opts = { from: FROM, to: TO, userZone: "Europe/Berlin" };
    // Act
    const paced = await expandPaced(text, { ...opts, pace: { timer: systemWorkTimer } });
    const unbounded = expand(text, {
      ...opts,
      limits: {
        eventOccurrences: Number.POSITIVE_INFINITY,
        feedOccurrences: Number.POSITIVE_INFINITY,
      },
    });
    // Assert: the same occurrences as with no caps at all.
    console.log(`20,000-event feed: ${Math.round(paced.spentMs ?? 0)} ms of CPU to expand`);
    expect(paced.truncated).toBeUndefined();
    expect(paced.occurrences).toEqual(unbounded.occurrences);
    expect(paced.occurrences.length).toBeLessThan(MAX_OCCURRENCES_PER_FEED / 3);
    expect(paced.spentMs).toBeLessThan(EXPANSION_CPU_BUDGET_MS / 2);
    const perEvent = new Map<string, number>();
    for (const o of paced.occurrences) perEvent.set(o.uid, (perEvent.get(o.uid) ?? 0) + 1);
    expect(Math.max(...perEvent.values())).toBeLessThan(MAX_OCCURRENCES_PER_EVENT / 100);
  });
});

describe.runIf(hasCorpus)("the shared corpus of real calendars", () => {
  it("stays under every cap in a sync's window at each of its events", () => {
    const dir = path.join(corpusDir, "ics");
    const windows = { checked: 0, truncated: [] as string[] };
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ics"))) {
      const text = readFileSync(path.join(dir, file), "utf8");
      // The sync's window (a day back, two weeks on) at the start of each month with an event.
      const months = new Set(
        [...text.matchAll(/^DTSTART[^:\r\n]*:(\d{6})/gm)].map((m) => m[1] ?? ""),
      );
      for (const month of months) {
        const at = Date.UTC(Number(month.slice(0, 4)), Number(month.slice(4, 6)) - 1);
        if (!Number.isFinite(at)) continue;
        const read = expand(text, { from: at - DAY, to: at + 14 * DAY, userZone: "UTC" });
        windows.checked++;
        if (read.truncated !== undefined) windows.truncated.push(`${file} ${month}`);
      }
    }
    expect(windows.checked).toBeGreaterThan(64);
    expect(windows.truncated).toEqual([]);
  });
});
