import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  channelIdSchema,
  entryIdSchema,
  eventIdSchema,
  sourceIdSchema,
  workspaceIdSchema,
} from "#lib/core/ids";
import {
  envelopeSchema,
  eventCallbackSchema,
  OooCommandError,
  parseOooCommand,
} from "../../../lib/webhooks";

/** DynamoDB's key limits, in UTF-8 bytes. */
const PARTITION_KEY_BYTES = 2048;
const SORT_KEY_BYTES = 1024;
const bytes = (s: string): number => Buffer.byteLength(s, "utf8");
/** The longest prefix the store puts before an id (`CHANNEL#`, `EVENT#`, `USER#…#…#OOO#`). */
const PREFIX = "TIMELINE#OOO#CHANNEL#EVENT#";

describe("id bounds at the edge", () => {
  it("accepts the service's team and user ids used by the demo, the bench and the fixtures", () => {
    for (const id of ["T0DEMO", "U001", "U0ADMIN", "U0MEMBER2", "T0BENCH", "U00001", "T0SOAK"]) {
      expect(workspaceIdSchema.safeParse(id).success, id).toBe(true);
    }
  });

  it("refuses workspace ids that are empty, lower-case, carry the key separator or run long", () => {
    for (const id of ["", "u001", "T0DEMO#U001", "U 1", "😀", "U".repeat(33)]) {
      expect(workspaceIdSchema.safeParse(id).success, id).toBe(false);
    }
  });

  it("keeps every accepted channel, event, source and entry id inside DynamoDB's key limits", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 400 }),
        fc.string({ unit: "binary", maxLength: 400 }),
        (text, binary) => {
          for (const id of [text, binary]) {
            for (const schema of [channelIdSchema, eventIdSchema]) {
              if (schema.safeParse(id).success) {
                expect(bytes(PREFIX + id)).toBeLessThanOrEqual(PARTITION_KEY_BYTES);
              }
            }
            for (const schema of [entryIdSchema, sourceIdSchema]) {
              if (schema.safeParse(id).success) {
                expect(bytes(PREFIX + id)).toBeLessThanOrEqual(SORT_KEY_BYTES);
              }
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it("accepts the ids Statuspilot and the emulator issue, and refuses the oversized ones", () => {
    expect(entryIdSchema.safeParse(randomUUID()).success).toBe(true);
    expect(eventIdSchema.safeParse("Ev00000001").success).toBe(true);
    expect(channelIdSchema.safeParse("T0DEMO.U001.cal1").success).toBe(true);
    expect(entryIdSchema.safeParse("a".repeat(129)).success).toBe(false);
    expect(eventIdSchema.safeParse("Ev".repeat(1500)).success).toBe(false);
    expect(eventIdSchema.safeParse("Ev 1").success).toBe(false);
    expect(channelIdSchema.safeParse("c".repeat(256)).success).toBe(false);
  });

  it("refuses an event or envelope type longer than 64 characters, so replies echo a short one", () => {
    expect(envelopeSchema.safeParse({ type: "t".repeat(65) }).success).toBe(false);
    const callback = {
      type: "event_callback",
      team_id: "T0DEMO",
      event_id: "Ev1",
      event_time: 1,
      event: { type: "m".repeat(65) },
    };
    expect(eventCallbackSchema.safeParse(callback).success).toBe(false);
    expect(eventCallbackSchema.safeParse({ ...callback, event: { type: "message" } }).success).toBe(
      true,
    );
  });

  it("answers `/ooo cancel` with an id longer than any issued one without looking it up", () => {
    // Act
    const cancel = () => parseOooCommand(`cancel ${"a".repeat(129)}`, { now: 0, zone: "UTC" });
    // Assess
    expect(cancel).toThrow(OooCommandError);
    expect(cancel).toThrow(/at most 128 characters/);
    expect(parseOooCommand(`cancel ${"a".repeat(128)}`, { now: 0, zone: "UTC" })).toEqual({
      kind: "cancel",
      id: "a".repeat(128),
    });
  });
});
