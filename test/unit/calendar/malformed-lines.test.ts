import { describe, expect, it } from "vitest";
import { expand } from "#lib/calendar/expand";
import { icsFixture } from "./ics-fixtures";

const text = icsFixture("malformed-lines.ics");
const iso = (ms: number) => new Date(ms).toISOString();

const result = () =>
  expand(text, {
    from: Date.parse("2025-03-01T00:00:00Z"),
    to: Date.parse("2025-04-01T00:00:00Z"),
    userZone: "UTC",
    userEmails: ["me@example.com"],
  });
const rowsOf = (uid: string) =>
  result()
    .occurrences.filter((o) => o.uid === uid)
    .map((o) => `${iso(o.start)} ${iso(o.end)} ${o.summary}`);

describe("expand: a stray malformed line costs that line, not the event", () => {
  it.each([
    [
      "no-colon",
      "THIS",
      "2025-03-03T09:00:00.000Z 2025-03-03T09:30:00.000Z A line without a colon",
    ],
    [
      "empty-parameter-name",
      "X-FOO",
      "2025-03-03T12:00:00.000Z 2025-03-03T13:00:00.000Z A parameter without a name",
    ],
  ])("keeps %s and drops its %s line with a warning", (uid, name, row) => {
    // Prepare / Act
    const r = result();
    // Assess
    expect(rowsOf(uid)).toEqual([row]);
    expect(r.warnings).toContainEqual({ uid, message: `dropped a malformed ${name} line` });
  });

  it("keeps the other attendees of an event whose ATTENDEE line has an unterminated quote", () => {
    // Prepare / Act
    const occurrence = result().occurrences.find((o) => o.uid === "unterminated-quote");
    // Assess
    expect(occurrence).toMatchObject({ attendeeCount: 1, partstat: "ACCEPTED" });
  });

  it("ignores an EXDATE nobody can read and still applies the readable one", () => {
    // Prepare / Act
    const r = result();
    // Assess
    expect(rowsOf("garbled-exdate").map((row) => row.slice(0, 24))).toEqual([
      "2025-03-03T14:00:00.000Z",
      "2025-03-05T14:00:00.000Z",
    ]);
    expect(r.warnings).toContainEqual({
      uid: "garbled-exdate",
      message: 'ignored EXDATE: invalid date-time value: "garb-ag-eT::"',
    });
  });

  it("ignores a DTEND that is no real date, and ends the event by its DURATION", () => {
    expect(rowsOf("garbled-dtend")).toEqual([
      "2025-03-03T15:00:00.000Z 2025-03-03T15:45:00.000Z An end that is no date",
    ]);
  });

  it("reads BYDAY written with spaces after the commas", () => {
    expect(rowsOf("byday-with-spaces").map((row) => row.slice(0, 10))).toEqual([
      "2025-03-03",
      "2025-03-05",
      "2025-03-07",
      "2025-03-10",
    ]);
  });
});

describe("expand: a component without a usable DTSTART", () => {
  it("is skipped with a reason, never placed at an instant nobody wrote", () => {
    // Prepare / Act
    const r = result();
    // Assess
    expect(r.skipped).toEqual([
      { uid: "no-dtstart", summary: "Has an end but no start", reason: "missing DTSTART" },
      {
        uid: "impossible-dtstart",
        summary: "Starts on the 40th of the 13th month",
        reason: "DTSTART 2025-13-40T25:00:00Z is not a real date",
      },
      { uid: "weekly", summary: "Moved, but to where?", reason: "missing DTSTART" },
    ]);
    expect(
      r.occurrences.some((o) => o.uid === "no-dtstart" || o.uid === "impossible-dtstart"),
    ).toBe(false);
  });

  it("leaves the instance a start-less override would have moved where it was", () => {
    expect(rowsOf("weekly")).toEqual(["2025-03-03T19:00:00.000Z 2025-03-03T20:00:00.000Z Weekly"]);
  });

  it("still lets a start-less cancellation remove its instance", () => {
    expect(rowsOf("weekly").some((row) => row.startsWith("2025-03-10"))).toBe(false);
  });
});
