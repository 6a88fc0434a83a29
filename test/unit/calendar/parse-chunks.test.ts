import { describe, expect, it } from "vitest";
import { calendarEngines } from "#bench/calendar";
import { generateFeed } from "#bench/fixtures/generate-feed";
import { parseFeed } from "#lib/calendar/parse";
import { PARSE_CHUNK_BYTES, parseInChunks } from "#lib/calendar/parse-chunks";
import { runPaced, runToEnd, WorkMeter } from "#lib/calendar/work-budget";
import { SteppingWorkTimer } from "../../support/work-timer";

/**
 * A large feed is parsed a piece at a time, giving way between pieces: the calendar it makes is
 * the one a parse of the whole text makes, component for component.
 */

const WINDOW_START = Date.UTC(2026, 2, 2);
const stamp = (i: number) => `202603021${String(i % 10)}0000Z`;
const event = (i: number) =>
  `BEGIN:VEVENT\r\nUID:e${i}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:${stamp(i)}\r\nSUMMARY:e${i}\r\nEND:VEVENT\r\n`;
const uids = (root: ReturnType<typeof parseFeed>) =>
  root.getAllSubcomponents("vevent").map((c) => String(c.getFirstPropertyValue("uid")));

describe("parsing a large feed in pieces", () => {
  it("makes the calendar a parse of the whole text makes", () => {
    // Arrange: 4.4 MB, about 17 pieces; zones at the top, overrides among the events.
    const text = generateFeed({ events: 20_000, series: 1_200, windowStart: WINDOW_START });
    const meter = new WorkMeter();
    // Act
    const whole = parseFeed(text, [], []);
    const pieces = runToEnd(parseInChunks(text, [], [], meter), meter);
    // Assert
    expect(text.length).toBeGreaterThan(10 * PARSE_CHUNK_BYTES);
    expect(pieces.toJSON()).toEqual(whole.toJSON());
  });

  it("keeps every event of a feed of several calendars, whole or in pieces", () => {
    // Arrange: one calendar of one event, then another of many (as some exports write them).
    const many = Array.from({ length: 4_000 }, (_, i) => event(i + 2)).join("");
    const small = `BEGIN:VCALENDAR\r\nVERSION:2.0\r\n${event(1)}END:VCALENDAR\r\nBEGIN:VCALENDAR\r\nVERSION:2.0\r\n${event(2)}${event(3)}${event(4)}END:VCALENDAR\r\n`;
    const large = `BEGIN:VCALENDAR\r\nVERSION:2.0\r\n${event(1)}END:VCALENDAR\r\nBEGIN:VCALENDAR\r\nVERSION:2.0\r\n${many}END:VCALENDAR\r\n`;
    const meter = new WorkMeter();
    // Act
    const fromSmall = parseFeed(small, [], []);
    const fromLarge = runToEnd(parseInChunks(large, [], [], meter), meter);
    // Assert
    expect(uids(fromSmall)).toEqual(["e1", "e2", "e3", "e4"]);
    expect(large.length).toBeGreaterThan(PARSE_CHUNK_BYTES);
    expect(uids(fromLarge)).toEqual(Array.from({ length: 4_001 }, (_, i) => `e${i + 1}`));
  });

  it("gives way between the pieces of a large feed", async () => {
    // Arrange: the timer moves 1 ms a reading, so every piece ends a slice.
    const text = generateFeed({ events: 5_000, series: 300, windowStart: WINDOW_START });
    const timer = new SteppingWorkTimer(10);
    const meter = new WorkMeter({}, { timer });
    // Act
    const root = await runPaced(parseInChunks(text, [], [], meter), meter, timer);
    // Assert: one give-way (of up to ten) after each piece at least.
    expect(root.getAllSubcomponents("vevent").length).toBeGreaterThan(5_000);
    expect(timer.giveWays).toBeGreaterThanOrEqual(Math.floor(text.length / PARSE_CHUNK_BYTES));
  });

  it("expands a large feed read in pieces as ical.js does reading it whole", () => {
    // Arrange: the bench's kind of feed and window (fewer series: the straightforward ical.js
    // engine, which parses the text at once, iterates each from its first instance).
    const text = generateFeed({ events: 5_000, series: 30, windowStart: WINDOW_START });
    const to = WINDOW_START + 14 * 86_400_000;
    // Act
    const ours = calendarEngines.a(text, WINDOW_START, to);
    const icalWhole = calendarEngines.b(text, WINDOW_START, to);
    // Assert
    expect(text.length).toBeGreaterThan(3 * PARSE_CHUNK_BYTES);
    expect(new Set(ours)).toEqual(new Set(icalWhole));
    expect(ours.length).toBeGreaterThan(100);
  });
});
