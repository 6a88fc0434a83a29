import { describe, expect, it } from "vitest";
import { busyBlocks, DAY, eventsFor, MONTH_START, shownEvents } from "../../bench/support/cost-sim";

/*
 * The cost bench divides every call by the busy blocks that showed. Its first week, counted by
 * hand from the calendar it writes (bench/support/cost-sim.ts): each weekday the stand-up and
 * the sync back to back (one block), the review, the lunch talk, the planning and the
 * one-on-one: 5 blocks; Wednesday's focus block after the planning: 1 more. Tuesday's
 * one-on-one moves at 08:00, before it shows: still one block. Thursday's review is cancelled
 * at 11:15, while it shows: its status and its snooze were set, so it counts.
 */

describe("the cost bench's busy blocks", () => {
  it("count a block cancelled while it showed, and a block moved before it began once", () => {
    // Prepare
    const end = MONTH_START + 7 * DAY;
    // Act
    const shown = busyBlocks(shownEvents(0, 7, end));
    const finalOnly = busyBlocks(eventsFor(0, 7, end));
    // Assess: 5 weekdays × 5 + Wednesday's focus = 26; the final calendar alone misses one.
    expect(shown).toBe(26);
    expect(finalOnly).toBe(25);
  });
});
