import { describe, expect, it } from "vitest";
import { expand } from "#lib/calendar/expand";
import { berlinWall, icsFixture } from "./ics-fixtures";

const text = icsFixture("this-and-future.ics");

const rows = (uid: string, from: string, to: string) =>
  expand(text, { from: Date.parse(from), to: Date.parse(to), userZone: "UTC" })
    .occurrences.filter((o) => o.uid === uid)
    .map((o) => `${berlinWall.format(o.start)}–${berlinWall.format(o.end).slice(11)} ${o.summary}`);

describe("expand: RANGE=THISANDFUTURE overrides", () => {
  it("applies each change to every later instance, the second superseding the first from its point on", () => {
    expect(rows("two-changes", "2025-01-01T00:00:00Z", "2025-02-25T00:00:00Z")).toEqual([
      "2025-01-06 10:00–11:00 Weekly sync",
      "2025-01-13 10:00–11:00 Weekly sync",
      "2025-01-20 11:00–12:00 Weekly sync at 11",
      "2025-01-27 11:00–12:00 Weekly sync at 11",
      "2025-02-03 11:00–12:00 Weekly sync at 11",
      "2025-02-10 14:00–14:30 Weekly sync at 14, shorter",
      "2025-02-17 14:00–14:30 Weekly sync at 14, shorter",
      "2025-02-24 14:00–14:30 Weekly sync at 14, shorter",
    ]);
  });

  it("keeps applying them months later, after the clocks changed", () => {
    expect(rows("two-changes", "2025-03-24T00:00:00Z", "2025-04-08T00:00:00Z")).toEqual([
      "2025-03-24 14:00–14:30 Weekly sync at 14, shorter",
      "2025-03-31 14:00–14:30 Weekly sync at 14, shorter",
      "2025-04-07 14:00–14:30 Weekly sync at 14, shorter",
    ]);
  });

  it("moves later instances by the wall-clock shift when the change itself crosses a DST change", () => {
    // The 24 March 10:00 CET instance moved to 1 April 10:00 CEST: eight days, same local time.
    expect(rows("moved-across-dst", "2025-03-15T00:00:00Z", "2025-04-20T00:00:00Z")).toEqual([
      "2025-03-17 10:00–11:00 Planning on Mondays",
      "2025-04-01 10:00–11:00 Planning on Tuesdays, from April",
      "2025-04-08 10:00–11:00 Planning on Tuesdays, from April",
      "2025-04-15 10:00–11:00 Planning on Tuesdays, from April",
    ]);
  });

  it("uses the latest version (highest SEQUENCE) of a change for the later instances too", () => {
    expect(rows("edited-twice", "2025-01-13T00:00:00Z", "2025-02-05T00:00:00Z")).toEqual([
      "2025-01-13 15:00–16:00 Review",
      "2025-01-20 09:00–10:00 Review at 9 (second edit)",
      "2025-01-27 09:00–10:00 Review at 9 (second edit)",
      "2025-02-03 09:00–10:00 Review at 9 (second edit)",
    ]);
  });
});
