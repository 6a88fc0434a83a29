import { describe, expect, it } from "vitest";
import { decide, decisionStatus } from "#lib/core/decide";
import type { Block, StatusValue } from "#lib/core/types";

const NOW = Date.UTC(2025, 2, 3, 9, 0, 0);
const EMPTY: StatusValue = { text: "", emoji: "", expiration: 0 };
const meeting = (start: number, end: number): Block => ({
  start,
  end,
  kind: "meeting",
  text: "In a meeting",
  emoji: ":calendar:",
  expiration: Math.floor(end / 1000),
});
const block = meeting(NOW - 60_000, NOW + 30 * 60_000);
const blockStatus: StatusValue = {
  text: "In a meeting",
  emoji: ":calendar:",
  expiration: Math.floor(block.end / 1000),
};

describe("decide", () => {
  it("does nothing when the profile is empty and nothing is desired", () => {
    // Prepare / Act
    const d = decide({
      desired: undefined,
      actual: EMPTY,
      lastWritten: undefined,
      override: undefined,
      now: NOW,
    });
    // Assess
    expect(d).toEqual({ kind: "nothing" });
  });

  it("sets the desired status with the block's end as expiration when the profile is empty", () => {
    // Act
    const d = decide({
      desired: block,
      actual: EMPTY,
      lastWritten: undefined,
      override: undefined,
      now: NOW,
    });
    // Assess
    expect(d).toEqual({ kind: "set", ...blockStatus });
  });

  it("does nothing when our last write is showing and still desired", () => {
    const d = decide({
      desired: block,
      actual: blockStatus,
      lastWritten: blockStatus,
      override: undefined,
      now: NOW,
    });
    expect(d).toEqual({ kind: "nothing" });
  });

  it("sets the new status when our write is showing and a different block is desired", () => {
    // Prepare
    const focus: Block = { ...block, kind: "focus", text: "Focus", emoji: ":headphones:" };
    // Act
    const d = decide({
      desired: focus,
      actual: blockStatus,
      lastWritten: blockStatus,
      override: undefined,
      now: NOW,
    });
    // Assess
    expect(d).toEqual({
      kind: "set",
      text: "Focus",
      emoji: ":headphones:",
      expiration: blockStatus.expiration,
    });
  });

  it("clears text and emoji together when the meeting is cancelled while showing", () => {
    // Act
    const d = decide({
      desired: undefined,
      actual: blockStatus,
      lastWritten: blockStatus,
      override: undefined,
      now: NOW,
    });
    // Assess
    expect(d).toEqual({ kind: "clear" });
    expect(decisionStatus(d)).toEqual({ text: "", emoji: "", expiration: 0 });
  });

  it("leaves a status the user set, whatever is desired", () => {
    // Prepare
    const manual: StatusValue = { text: "Lunch", emoji: ":taco:", expiration: 0 };
    // Act
    const withBlock = decide({
      desired: block,
      actual: manual,
      lastWritten: blockStatus,
      override: undefined,
      now: NOW,
    });
    const withOverride = decide({
      desired: undefined,
      actual: manual,
      lastWritten: blockStatus,
      override: manual,
      now: NOW,
    });
    // Assess
    expect(withBlock.kind).toBe("leave");
    expect(withOverride.kind).toBe("leave");
  });

  it("resumes the desired status once the manual override has expired", () => {
    // Prepare
    const manual: StatusValue = {
      text: "Lunch",
      emoji: ":taco:",
      expiration: Math.floor(NOW / 1000) - 1,
    };
    // Act
    const d = decide({
      desired: block,
      actual: manual,
      lastWritten: blockStatus,
      override: manual,
      now: NOW,
    });
    // Assess
    expect(d).toEqual({ kind: "set", ...blockStatus });
  });

  it("treats our expired write as cleared by the service and does not clear it again", () => {
    // Prepare
    const old: StatusValue = { ...blockStatus, expiration: Math.floor(NOW / 1000) - 5 };
    // Act
    const d = decide({
      desired: undefined,
      actual: old,
      lastWritten: old,
      override: undefined,
      now: NOW,
    });
    // Assess
    expect(d).toEqual({ kind: "nothing" });
  });

  it("ignores a desired block that has already ended", () => {
    const ended = meeting(NOW - 120_000, NOW - 1);
    const d = decide({
      desired: ended,
      actual: EMPTY,
      lastWritten: undefined,
      override: undefined,
      now: NOW,
    });
    expect(d).toEqual({ kind: "nothing" });
  });
});
