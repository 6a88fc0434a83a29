import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createHandler } from "#functions/http/ooo-command";
import {
  garbageBody,
  OVERSIZED_ENTRY_ID,
  OVERSIZED_IDS,
  plainWire,
  signatureHeaders,
} from "./support/requests";
import {
  ephemeralNoOp,
  expectBadSignaturesRefused,
  form,
  SERVICE_SIG,
  signedEvent,
  signedRouteUnderFuzz,
} from "./support/service-signed";
import { ALICE, SECRETS } from "./support/stack";
import { fuzz, sendAndExpectRefusal } from "./support/verdict";

const target = signedRouteUnderFuzz(createHandler, "/service/commands/ooo");
const { handler, eventOf } = target;

/**
 * `/ooo` texts that schedule nothing: help, list, cancelling unknown ids, impossible or past
 * dates, reversed ranges, over-long messages and noise.
 */
const harmlessText = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "help",
    "list",
    "list extra",
    "cancel",
    "cancel a b",
    "until",
    "until 2020-01-01",
    "until tomorrow",
    "2025-12-01",
    "2025-12-01 to 2025-12-02",
    "2026-02-30",
    "2026-13-01",
    "2026-01-05T25:00",
    "2026-01-05T10:60",
    "2026-01-09 to 2026-01-05",
    "2026-01-05 to",
    "2026-01-05 until",
    `2026-01-05 ${"m".repeat(101)}`,
    "0000-00-00",
    "9999-99-99",
    "２０２６-０１-０５",
  ),
  fc.string({ maxLength: 200 }).filter((t) => !/^\s*\d{4}-\d{2}-\d{2}/.test(t)),
  fc.string({ maxLength: 40 }).map((id) => `cancel ${id.replace(/\s/g, "") || "x"}`),
);

describe("POST /service/commands/ooo under fuzzing", () => {
  it("refuses every wrongly signed, stale or unsigned command with 401 and schedules nothing", async () => {
    await expectBadSignaturesRefused(
      target,
      fc.oneof(
        garbageBody,
        // A well-formed command that would schedule, were it signed correctly.
        fc
          .constant(
            form({
              team_id: ALICE.team,
              user_id: ALICE.user,
              command: "/ooo",
              text: "2026-01-05 to 2026-01-09 Skiing",
            }),
          )
          .map(plainWire),
      ),
      80,
    );
  });

  it("answers correctly signed malformed forms with 400 and harmless commands ephemerally", async () => {
    const field = fc.oneof(
      fc.constant(undefined),
      fc.string({ maxLength: 30 }),
      fc.constantFrom("", "T0DEMO", "U001", "U002", "UNKNOWN", "a".repeat(1025)),
    );
    await fuzz(
      fc.oneof(
        garbageBody,
        fc
          .record({
            team_id: field,
            user_id: field,
            command: fc.constantFrom(undefined, "/ooo", "/OOO", "/out", "", "ooo"),
            text: fc.option(harmlessText, { nil: undefined }),
            extra: fc.option(fc.string({ maxLength: 50 }), { nil: undefined }),
          })
          .map(form)
          .map(plainWire),
        // Alice herself, with every harmless text.
        harmlessText
          .map((text) => form({ team_id: ALICE.team, user_id: ALICE.user, command: "/ooo", text }))
          .map(plainWire),
        // Fields repeated: URLSearchParams keeps the last, a careless parser the first.
        fc
          .string({ maxLength: 20 })
          .map(
            (t) =>
              `team_id=T0DEMO&user_id=U001&command=%2Fooo&text=list&text=${encodeURIComponent(t)}&user_id=U001`,
          )
          .map(plainWire),
      ),
      100,
      async (wire) => {
        const event = signedEvent(eventOf, wire);
        // Signed as the service signs: refused for what it says, never for its signature.
        const res = await sendAndExpectRefusal(target.stack, handler, event, ephemeralNoOp);
        expect(res.statusCode).not.toBe(401);
      },
    );
  });

  // A signed command whose team_id or user_id is longer than DynamoDB's 2048-byte key limit
  // must be refused with 400 before the user is looked up.
  it.each(OVERSIZED_IDS.map((id) => ({ length: id.length, id })))(
    "answers a signed command with a $length-character user_id with 4xx instead of a 500",
    async ({ id }) => {
      const body = form({ team_id: ALICE.team, user_id: id, command: "/ooo", text: "list" });
      const event = eventOf(body, signatureHeaders(SERVICE_SIG, SECRETS.signing, body));
      // Signed as the service signs: refused for what it says, never for its signature.
      const res = await sendAndExpectRefusal(target.stack, handler, event, ephemeralNoOp);
      expect(res.statusCode).not.toBe(401);
    },
  );

  // `/ooo cancel <id>` with an id longer than DynamoDB's 1024-byte sort key limit is answered
  // ephemerally (no such entry can exist) and never reaches DeleteItem.
  it("answers `/ooo cancel` with a 1025-character id ephemerally instead of a 500", async () => {
    const body = form({
      team_id: ALICE.team,
      user_id: ALICE.user,
      command: "/ooo",
      text: `cancel ${OVERSIZED_ENTRY_ID}`,
    });
    const event = eventOf(body, signatureHeaders(SERVICE_SIG, SECRETS.signing, body));
    // Signed as the service signs: refused for what it says, never for its signature.
    const res = await sendAndExpectRefusal(target.stack, handler, event, ephemeralNoOp);
    expect(res.statusCode).not.toBe(401);
  });

  it("wrote log lines while fuzzing, so the no-secret check had something to read", () => {
    expect(target.stack.logs.lines.length).toBeGreaterThan(0);
  });
});
