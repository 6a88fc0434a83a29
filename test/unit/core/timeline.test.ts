import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_RULES, userRulesSchema } from "#lib/core/rules";
import {
  buildTimeline,
  desiredAt,
  nextTransitionAfter,
  nextWakeAfter,
  resolveSegments,
  type Segment,
} from "#lib/core/timeline";
import type { Occurrence, StatusKind } from "#lib/core/types";

const H = 3_600_000;
const T0 = Date.UTC(2024, 2, 12, 0);
const seg = (
  start: number,
  end: number,
  kind: StatusKind,
  text = kind,
  emoji = `:${kind}:`,
): Segment => ({ start: T0 + start * H, end: T0 + end * H, kind, text, emoji });
const occ = (
  uid: string,
  start: number,
  end: number,
  over: Partial<Occurrence> = {},
): Occurrence => ({
  uid,
  start: T0 + start * H,
  end: T0 + end * H,
  allDay: false,
  summary: uid,
  attendeeCount: 2,
  ...over,
});

describe("resolveSegments", () => {
  it("merges back-to-back meetings into one block that expires at its end", () => {
    const blocks = resolveSegments([seg(9, 10, "meeting"), seg(10, 11, "meeting")]);
    expect(blocks).toEqual([
      {
        start: T0 + 9 * H,
        end: T0 + 11 * H,
        kind: "meeting",
        text: "meeting",
        emoji: ":meeting:",
        expiration: (T0 + 11 * H) / 1000,
      },
    ]);
  });

  it("lets focus cut into a meeting and out-of-office cover both", () => {
    const blocks = resolveSegments([
      seg(9, 12, "meeting"),
      seg(10, 11, "focus"),
      seg(11, 11.5, "ooo"),
    ]);
    expect(blocks.map((b) => [b.kind, (b.start - T0) / H, (b.end - T0) / H])).toEqual([
      ["meeting", 9, 10],
      ["focus", 10, 11],
      ["ooo", 11, 11.5],
      ["meeting", 11.5, 12],
    ]);
  });

  it("bridges a short gap only when asked to", () => {
    const parts = [seg(9, 10, "meeting"), seg(10.25, 11, "meeting")];
    expect(resolveSegments(parts)).toHaveLength(2);
    expect(resolveSegments(parts, { bridgeGapMinutes: 15 })).toHaveLength(1);
  });

  it("accepts existing blocks as segments (scheduled out-of-office overlays)", () => {
    const [block] = resolveSegments([seg(9, 10, "meeting")]);
    const blocks = resolveSegments([...(block ? [block] : []), seg(9.5, 12, "ooo")]);
    expect(blocks.map((b) => b.kind)).toEqual(["meeting", "ooo"]);
  });

  it("yields non-overlapping sorted blocks whose kind is the highest covering priority", () => {
    const kinds: StatusKind[] = ["meeting", "focus", "ooo"];
    const arb = fc.array(
      fc.tuple(
        fc.integer({ min: 0, max: 48 }),
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom(...kinds),
      ),
      { maxLength: 20 },
    );
    fc.assert(
      fc.property(arb, (raw) => {
        const segments = raw.map(([s, d, k]) => seg(s / 2, (s + d) / 2, k));
        const blocks = resolveSegments(segments);
        for (let i = 1; i < blocks.length; i++)
          expect(blocks[i]?.start).toBeGreaterThanOrEqual(blocks[i - 1]?.end ?? 0);
        const rank: Record<string, number> = { meeting: 1, focus: 2, ooo: 3 };
        for (let t = 0; t < 30; t += 0.25) {
          const at = T0 + t * H;
          const covering = segments.filter((s) => s.start <= at && at < s.end);
          const best = Math.max(0, ...covering.map((s) => rank[s.kind] ?? 0));
          const block = desiredAt(blocks, at);
          expect(block ? rank[block.kind] : 0).toBe(best);
        }
      }),
    );
  });
});

describe("buildTimeline", () => {
  it("skips declined and cancelled meetings and writes the until-date into out-of-office", () => {
    const occurrences = [
      occ("standup", 9, 9.5),
      occ("declined", 9.5, 10, { partstat: "DECLINED" }),
      occ("cancelled", 10, 11, { status: "CANCELLED" }),
      occ("leave", 24, 72, { allDay: true, busyStatus: "OOF" }),
    ];
    const blocks = buildTimeline(occurrences, {
      rules: DEFAULT_RULES,
      tz: "UTC",
      from: T0,
      to: T0 + 96 * H,
    });
    expect(blocks.map((b) => [b.kind, b.text])).toEqual([
      ["meeting", "In a meeting"],
      ["ooo", "Out of office until Thu, 14 Mar"],
    ]);
  });

  it("clears text and emoji together when the only meeting is cancelled", () => {
    const blocks = buildTimeline([occ("m", 9, 10, { status: "CANCELLED" })], {
      rules: DEFAULT_RULES,
      tz: "UTC",
      from: T0,
      to: T0 + 24 * H,
    });
    expect(desiredAt(blocks, T0 + 9.5 * H)).toBeUndefined();
  });

  it("bridges gaps from the user's rules", () => {
    const rules = userRulesSchema.parse({ bridgeGapMinutes: 10 });
    const blocks = buildTimeline([occ("a", 9, 10), occ("b", 10 + 1 / 6, 11)], {
      rules,
      tz: "UTC",
      from: T0,
      to: T0 + 24 * H,
    });
    expect(blocks).toHaveLength(1);
  });
});

describe("desiredAt / nextTransitionAfter", () => {
  const timeline = resolveSegments([seg(9, 10, "meeting"), seg(11, 12, "focus")]);
  it("treats a block as [start, end)", () => {
    expect(desiredAt(timeline, T0 + 9 * H)?.kind).toBe("meeting");
    expect(desiredAt(timeline, T0 + 10 * H)).toBeUndefined();
  });
  it("finds the next start or end strictly after t", () => {
    expect(nextTransitionAfter(timeline, T0)).toBe(T0 + 9 * H);
    expect(nextTransitionAfter(timeline, T0 + 9 * H)).toBe(T0 + 10 * H);
    expect(nextTransitionAfter(timeline, T0 + 12 * H)).toBeUndefined();
  });
  it("wakes only at block starts, since each block's expiration clears it at its end", () => {
    expect(nextWakeAfter(timeline, T0)).toBe(T0 + 9 * H);
    expect(nextWakeAfter(timeline, T0 + 9 * H)).toBe(T0 + 11 * H);
    expect(nextWakeAfter(timeline, T0 + 11 * H)).toBeUndefined();
  });
});
