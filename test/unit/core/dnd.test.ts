import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decideSnooze, dndAllowed, type OurSnooze } from "#lib/core/dnd";
import { resolveSegments } from "#lib/core/timeline";
import type { Block } from "#lib/core/types";

// 2025-03-10T10:00:00Z; every instant below is written out from it by hand.
const T = Date.UTC(2025, 2, 10, 10, 0, 0);
const MIN = 60_000;

const block = (start: number, end: number, dnd: boolean, text = "Focus"): Block => ({
  start,
  end,
  kind: "focus",
  text,
  emoji: ":headphones:",
  expiration: end / 1000,
  ...(dnd ? { dnd: true } : {}),
});

const focus = block(T, T + 30 * MIN, true);
/** What a setSnooze of 30 minutes sent 400 ms after the start answers: 10:30:00. */
const oursForFocus: OurSnooze = { blockStart: T, blockEnd: T + 30 * MIN, endS: T / 1000 + 1800 };

describe("decideSnooze: a dnd block showing", () => {
  it("asks dnd.info first, then snoozes for the block's length rounded up to the minute", () => {
    // Act
    const first = decideSnooze({ timeline: [focus], now: T + 400, ours: undefined });
    const then = decideSnooze({
      timeline: [focus],
      now: T + 400,
      ours: undefined,
      info: { endS: undefined },
    });
    // Assess: 29 min 59.6 s left rounds up to 30.
    expect(first.kind).toBe("info");
    expect(then).toMatchObject({ kind: "snooze", minutes: 30, block: { start: T } });
  });

  it("rounds a part minute up, never down", () => {
    // Act: 10:00:00 to 10:20:30, asked at 10:00:01 → 20 min 29 s left → 21 minutes.
    const step = decideSnooze({
      timeline: [block(T, T + 20 * MIN + 30_000, true)],
      now: T + 1000,
      ours: undefined,
      info: { endS: undefined },
    });
    // Assess
    expect(step).toMatchObject({ kind: "snooze", minutes: 21 });
  });

  it("does nothing once it snoozed for this very block (one call per block)", () => {
    // Act
    const step = decideSnooze({ timeline: [focus], now: T + 10 * MIN, ours: oursForFocus });
    // Assess
    expect(step.kind).toBe("nothing");
  });

  it("does nothing for a block without dnd, even of the same status", () => {
    // Act
    const step = decideSnooze({ timeline: [block(T, T + MIN, false)], now: T, ours: undefined });
    // Assess
    expect(step.kind).toBe("nothing");
  });

  // The block ends at 10:30; the person's own snooze runs to 11:00, or to 10:10.
  it.each([
    { does: "leaves a longer", theirsEndS: T / 1000 + 3600, expected: { kind: "nothing" } },
    {
      does: "lengthens to the block's end a shorter",
      theirsEndS: T / 1000 + 600,
      expected: { kind: "snooze", minutes: 30 },
    },
  ])("$does snooze of the person's own", ({ theirsEndS, expected }) => {
    // Act
    const step = decideSnooze({
      timeline: [focus],
      now: T + 400,
      ours: undefined,
      info: { endS: theirsEndS },
    });
    // Assess
    expect(step).toMatchObject(expected);
  });

  it("snoozes again for the next dnd block when the previous one's snooze is still on", () => {
    // Prepare: back-to-back, different texts: two blocks.
    const next = block(T + 30 * MIN, T + 45 * MIN, true, "Deep work");
    // Act: at 10:30:00.5 our first snooze (ending 10:30:01) is still on.
    const step = decideSnooze({
      timeline: [focus, next],
      now: T + 30 * MIN + 500,
      ours: { ...oursForFocus, endS: T / 1000 + 1801 },
      info: { endS: T / 1000 + 1801 },
    });
    // Assess
    expect(step).toMatchObject({ kind: "snooze", minutes: 15, block: { start: T + 30 * MIN } });
  });

  // It is 10:05; the block showing, ours snoozed to 10:30, now ends at 10:20, or ended at 10:04.
  it.each([
    {
      does: "snoozes again, shorter,",
      newEnd: T + 20 * MIN,
      expected: { kind: "snooze", minutes: 15 },
    },
    { does: "ends our snooze", newEnd: T + 4 * MIN, expected: { kind: "end" } },
  ])("$does when the block showing was shortened", ({ newEnd, expected }) => {
    // Act
    const step = decideSnooze({
      timeline: [block(T, newEnd, true)],
      now: T + 5 * MIN,
      ours: oursForFocus,
      info: { endS: oursForFocus.endS },
    });
    // Assess
    expect(step).toMatchObject(expected);
  });
});

describe("equal statuses, one with dnd", () => {
  it("stay two blocks, so the dnd one starts its own snooze", () => {
    // Prepare: the same text and emoji, 10:00-10:30 without dnd, 10:30-11:00 with it.
    const segments = [block(T, T + 30 * MIN, false), block(T + 30 * MIN, T + 60 * MIN, true)];
    // Act
    const timeline = resolveSegments(segments);
    const step = decideSnooze({
      timeline,
      now: T + 30 * MIN + 300,
      ours: undefined,
      info: { endS: undefined },
    });
    // Assess
    expect(timeline.map((b) => [b.start, b.end, b.dnd === true])).toEqual([
      [T, T + 30 * MIN, false],
      [T + 30 * MIN, T + 60 * MIN, true],
    ]);
    expect(step).toMatchObject({ kind: "snooze", minutes: 30 });
  });
});

describe("decideSnooze: no dnd block showing", () => {
  it("does nothing without a snooze of ours", () => {
    // Act
    const step = decideSnooze({ timeline: [], now: T, ours: undefined });
    // Assess
    expect(step.kind).toBe("nothing");
  });

  it("ends our snooze when its block was cancelled, after dnd.info says it is still ours", () => {
    // Act
    const first = decideSnooze({ timeline: [], now: T + 5 * MIN, ours: oursForFocus });
    const then = decideSnooze({
      timeline: [],
      now: T + 5 * MIN,
      ours: oursForFocus,
      info: { endS: oursForFocus.endS },
    });
    // Assess
    expect(first.kind).toBe("info");
    expect(then.kind).toBe("end");
  });

  it("never ends a snooze the person set or changed: it only forgets ours", () => {
    // Act: the snooze on ends at 11:00, not at our 10:30.
    const changed = decideSnooze({
      timeline: [],
      now: T + 5 * MIN,
      ours: oursForFocus,
      info: { endS: T / 1000 + 3600 },
    });
    const gone = decideSnooze({
      timeline: [],
      now: T + 5 * MIN,
      ours: oursForFocus,
      info: { endS: undefined },
    });
    // Assess
    expect(changed.kind).toBe("forget");
    expect(gone.kind).toBe("forget");
  });

  it("makes no call and no write once our snooze's block ran its course", () => {
    // Act: 10:30:00.5, our snooze ends at 10:30:01 (the rounding), the block at 10:30.
    const step = decideSnooze({
      timeline: [],
      now: T + 30 * MIN + 500,
      ours: { ...oursForFocus, endS: T / 1000 + 1801 },
    });
    // Assess
    expect(step.kind).toBe("nothing");
  });
});

describe("decideSnooze: the person's own shorter snooze, lengthened by ours", () => {
  // The person snoozed to 10:10; our focus snooze (10:00-10:30) lengthened it.
  const theirsEndS = T / 1000 + 600;
  const lengthened: OurSnooze = { ...oursForFocus, theirsEndS };

  it("keeps when theirs was to end on the snooze that lengthens it", () => {
    // Act
    const step = decideSnooze({
      timeline: [focus],
      now: T + 400,
      ours: undefined,
      info: { endS: theirsEndS },
    });
    // Assess
    expect(step).toMatchObject({ kind: "snooze", minutes: 30, theirsEndS });
  });

  it("sets theirs back, to the minute rounded up, when our block is cancelled before it ends", () => {
    // Act: 10:04:30, five and a half minutes of theirs left → 6 minutes.
    const step = decideSnooze({
      timeline: [],
      now: T + 4 * MIN + 30_000,
      ours: lengthened,
      info: { endS: lengthened.endS },
    });
    // Assess
    expect(step).toMatchObject({ kind: "restore", minutes: 6 });
  });

  it("ends ours when the block is cancelled after theirs would have ended", () => {
    // Act: 10:12
    const step = decideSnooze({
      timeline: [],
      now: T + 12 * MIN,
      ours: lengthened,
      info: { endS: lengthened.endS },
    });
    // Assess
    expect(step.kind).toBe("end");
  });

  // It is 10:05; the block showing, ours snoozed to 10:30, now ends at 10:08, or at 10:20.
  it.each([
    { does: "sets theirs back", newEnd: T + 8 * MIN, expected: { kind: "restore", minutes: 5 } },
    {
      does: "snoozes again, still over theirs,",
      newEnd: T + 20 * MIN,
      expected: { kind: "snooze", minutes: 15, theirsEndS },
    },
  ])("$does when the block showing shrank", ({ newEnd, expected }) => {
    // Act
    const step = decideSnooze({
      timeline: [block(T, newEnd, true)],
      now: T + 5 * MIN,
      ours: lengthened,
      info: { endS: lengthened.endS },
    });
    // Assess
    expect(step).toMatchObject(expected);
  });

  it("forgets theirs once it has ended, for the next block's snooze", () => {
    // Act: 10:30:00.5, back-to-back with a second dnd block; theirs ended at 10:10.
    const next = block(T + 30 * MIN, T + 45 * MIN, true, "Deep work");
    const step = decideSnooze({
      timeline: [focus, next],
      now: T + 30 * MIN + 500,
      ours: { ...lengthened, endS: T / 1000 + 1801 },
      info: { endS: T / 1000 + 1801 },
    });
    // Assess
    expect(step).toMatchObject({ kind: "snooze", minutes: 15 });
    expect(step).not.toHaveProperty("theirsEndS");
  });
});

describe("decideSnooze: a DND call another reconcile has in flight", () => {
  const claimedAt = T + 200;

  it("leaves a snooze in flight for the block showing to its sender", () => {
    // Act
    const step = decideSnooze({
      timeline: [focus],
      now: T + 500,
      ours: undefined,
      inFlight: { blockStart: T, blockEnd: T + 30 * MIN, claimedAt },
    });
    // Assess
    expect(step.kind).toBe("nothing");
  });

  it.each([
    {
      what: "a snooze for the block before it moved",
      inFlight: { blockStart: T, blockEnd: T + 30 * MIN, claimedAt },
      timeline: [block(T + 10 * MIN, T + 40 * MIN, true)],
    },
    {
      what: "an end or a set-back while a dnd block shows",
      inFlight: { claimedAt },
      timeline: [focus],
    },
  ])("comes back once $what has landed", ({ inFlight, timeline }) => {
    // Act: 10:10
    const step = decideSnooze({ timeline, now: T + 10 * MIN, ours: oursForFocus, inFlight });
    // Assess
    expect(step.kind).toBe("recheck");
  });

  it("leaves an end or a set-back in flight alone when no dnd block shows", () => {
    // Act
    const step = decideSnooze({
      timeline: [],
      now: T + 10 * MIN,
      ours: oursForFocus,
      inFlight: { claimedAt },
    });
    // Assess
    expect(step.kind).toBe("nothing");
  });
});

describe("decideSnooze: the edges of the person's own snooze", () => {
  it("counts one of theirs ending at the very second the block ends as covering it", () => {
    // Act
    const step = decideSnooze({
      timeline: [focus],
      now: T + 400,
      ours: undefined,
      info: { endS: (T + 30 * MIN) / 1000 },
    });
    // Assess
    expect(step.kind).toBe("nothing");
  });

  it("ends ours, setting nothing back, when theirs ends at the very instant of the cancel", () => {
    // Act: 10:10:00, and theirs was to end at 10:10:00.
    const step = decideSnooze({
      timeline: [],
      now: T + 10 * MIN,
      ours: { ...oursForFocus, theirsEndS: T / 1000 + 600 },
      info: { endS: oursForFocus.endS },
    });
    // Assess
    expect(step.kind).toBe("end");
  });
});

describe("decideSnooze: properties", () => {
  it("a snooze always covers the rest of the block, by less than one extra minute", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 600 * MIN }),
        fc.integer({ min: 0, max: 600 * MIN }),
        (length, into) => {
          const start = T;
          const end = T + length;
          const now = start + (into % length);
          const step = decideSnooze({
            timeline: [block(start, end, true)],
            now,
            ours: undefined,
            info: { endS: undefined },
          });
          if (step.kind !== "snooze") return false;
          const covered = step.minutes * MIN;
          return covered >= end - now && covered - (end - now) < MIN && step.minutes >= 1;
        },
      ),
    );
  });
});

describe("dndAllowed", () => {
  it("follows the scopes granted at install, both of them", () => {
    expect(dndAllowed({ grantedScopes: ["users.profile:write", "dnd:read", "dnd:write"] })).toBe(
      true,
    );
    expect(dndAllowed({ grantedScopes: ["users.profile:write", "dnd:read"] })).toBe(false);
    expect(dndAllowed({ grantedScopes: [], sessionEpoch: T })).toBe(false);
  });

  it("refuses a person installed before the scopes were asked for, tries an admin's user", () => {
    expect(dndAllowed({ sessionEpoch: T })).toBe(false);
    expect(dndAllowed({})).toBe(true);
  });
});
