import { describe, expect, it } from "vitest";
import { rule } from "#lib/core/reconcile/decision";
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

describe("rule: the reconciliation table", () => {
  it("does nothing when the profile is empty and nothing is desired", () => {
    // Prepare / Act
    const d = rule({ actual: EMPTY, lastWritten: undefined, override: undefined }, undefined, NOW);
    // Assess
    expect(d).toEqual({ kind: "nothing", reason: expect.any(String) });
  });

  it("sets the desired status with the block's end as expiration when the profile is empty", () => {
    // Act
    const d = rule({ actual: EMPTY, lastWritten: undefined, override: undefined }, block, NOW);
    // Assess
    expect(d).toEqual({ kind: "set", status: blockStatus, reason: expect.any(String) });
  });

  it("does nothing when our last write is showing and still desired", () => {
    const d = rule(
      { actual: blockStatus, lastWritten: blockStatus, override: undefined },
      block,
      NOW,
    );
    expect(d).toEqual({ kind: "nothing", reason: expect.any(String) });
  });

  it("sets the new status when our write is showing and a different block is desired", () => {
    // Prepare
    const focus: Block = { ...block, kind: "focus", text: "Focus", emoji: ":headphones:" };
    // Act
    const d = rule(
      { actual: blockStatus, lastWritten: blockStatus, override: undefined },
      focus,
      NOW,
    );
    // Assess
    expect(d).toEqual({
      kind: "set",
      status: { text: "Focus", emoji: ":headphones:", expiration: blockStatus.expiration },
      reason: expect.any(String),
    });
  });

  it("clears text and emoji together when the meeting is cancelled while showing", () => {
    // Act
    const d = rule(
      { actual: blockStatus, lastWritten: blockStatus, override: undefined },
      undefined,
      NOW,
    );
    // Assess
    expect(d).toEqual({ kind: "clear", status: EMPTY, reason: expect.any(String) });
    expect(d.kind === "clear" && d.status).toEqual({ text: "", emoji: "", expiration: 0 });
  });

  it("leaves a status the user set, whatever is desired", () => {
    // Prepare
    const manual: StatusValue = { text: "Lunch", emoji: ":taco:", expiration: 0 };
    // Act
    const withBlock = rule(
      { actual: manual, lastWritten: blockStatus, override: undefined },
      block,
      NOW,
    );
    const withOverride = rule(
      { actual: manual, lastWritten: blockStatus, override: manual },
      undefined,
      NOW,
    );
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
    const d = rule({ actual: manual, lastWritten: blockStatus, override: manual }, block, NOW);
    // Assess
    expect(d).toEqual({ kind: "set", status: blockStatus, reason: expect.any(String) });
  });

  it("treats our expired write as cleared by the service and does not clear it again", () => {
    // Prepare
    const old: StatusValue = { ...blockStatus, expiration: Math.floor(NOW / 1000) - 5 };
    // Act
    const d = rule({ actual: old, lastWritten: old, override: undefined }, undefined, NOW);
    // Assess
    expect(d).toEqual({ kind: "nothing", reason: expect.any(String) });
  });

  it("ignores a desired block that has already ended", () => {
    const ended = meeting(NOW - 120_000, NOW - 1);
    const d = rule({ actual: EMPTY, lastWritten: undefined, override: undefined }, ended, NOW);
    expect(d).toEqual({ kind: "nothing", reason: expect.any(String) });
  });
});
