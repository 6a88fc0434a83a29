import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createHandler } from "#functions/http/statuspilot-command";
import { garbageBody, OVERSIZED_IDS, plainWire, signatureHeaders } from "./support/requests";
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

// `/statuspilot` is signed and parsed like `/ooo` (lib/webhooks/slash-command.ts): the same
// refusals, and every answer to a person an ephemeral one.

const target = signedRouteUnderFuzz(createHandler, "/service/commands/statuspilot");
const { handler, eventOf } = target;

/** Texts that change nothing: status, settings, help, and anything else (which is help). */
const harmlessText = fc.oneof(
  fc.constantFrom("", " ", "status", "STATUS", "settings", "help", "status extra", "unknown"),
  fc.string({ maxLength: 200 }).filter((t) => !/^\s*(pause|resume)\b/i.test(t)),
);

describe("POST /service/commands/statuspilot under fuzzing", () => {
  it("refuses every wrongly signed, stale or unsigned command with 401 and changes nothing", async () => {
    await expectBadSignaturesRefused(
      target,
      fc.oneof(
        garbageBody,
        // A well-formed command that would pause Alice, were it signed correctly.
        fc
          .constant(
            form({
              team_id: ALICE.team,
              user_id: ALICE.user,
              command: "/statuspilot",
              text: "pause",
            }),
          )
          .map(plainWire),
      ),
      60,
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
            command: fc.constantFrom(undefined, "/statuspilot", "/ooo", "/STATUSPILOT", ""),
            text: fc.option(harmlessText, { nil: undefined }),
          })
          .map(form)
          .map(plainWire),
        harmlessText
          .map((text) =>
            form({ team_id: ALICE.team, user_id: ALICE.user, command: "/statuspilot", text }),
          )
          .map(plainWire),
      ),
      80,
      async (wire) => {
        const event = signedEvent(eventOf, wire);
        // Signed as the service signs: refused for what it says, never for its signature.
        const res = await sendAndExpectRefusal(target.stack, handler, event, ephemeralNoOp);
        expect(res.statusCode).not.toBe(401);
      },
    );
  });

  it.each(OVERSIZED_IDS.map((id) => ({ length: id.length, id })))(
    "answers a signed command with a $length-character user_id with 4xx instead of a 500",
    async ({ id }) => {
      const body = form({
        team_id: ALICE.team,
        user_id: id,
        command: "/statuspilot",
        text: "status",
      });
      const event = eventOf(body, signatureHeaders(SERVICE_SIG, SECRETS.signing, body));
      // Signed as the service signs: refused for what it says, never for its signature.
      const res = await sendAndExpectRefusal(target.stack, handler, event, ephemeralNoOp);
      expect(res.statusCode).not.toBe(401);
    },
  );
});
