import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandler } from "#functions/http/statuspilot-command";
import {
  apiEvent,
  contentType,
  garbageBody,
  headers,
  noiseHeaders,
  OVERSIZED_IDS,
  signatureFault,
  signatureHeaders,
} from "./support/requests";
import { ALICE, type FuzzStack, SECRETS, startFuzzStack } from "./support/stack";
import { fuzz, type NoOp, sendAndExpectRefusal } from "./support/verdict";

// `/statuspilot` is signed and parsed like `/ooo` (lib/webhooks/slash-command.ts): the same
// refusals, and every answer to a person an ephemeral one.

const SIG = { timestamp: "x-svc-request-timestamp", signature: "x-svc-signature" };
let stack: FuzzStack;
const handler = createHandler(() => stack.app);

const eventOf = (
  body: string | undefined,
  extra: Record<string, string>,
  isBase64Encoded = false,
) =>
  apiEvent({
    method: "POST",
    route: "/service/commands/statuspilot",
    rawPath: "/service/commands/statuspilot",
    headers: extra,
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded,
  });

const form = (fields: Record<string, string | undefined>): string => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) params.append(k, v);
  return params.toString();
};

const ephemeralNoOp: NoOp = (res, body) => {
  const reply = body as { response_type?: unknown; text?: unknown } | undefined;
  return res.statusCode === 200 &&
    reply?.response_type === "ephemeral" &&
    typeof reply.text === "string" &&
    reply.text !== ""
    ? "ephemeral answer"
    : undefined;
};

/** Texts that change nothing: status, settings, help, and anything else (which is help). */
const harmlessText = fc.oneof(
  fc.constantFrom("", " ", "status", "STATUS", "settings", "help", "status extra", "unknown"),
  fc.string({ maxLength: 200 }).filter((t) => !/^\s*(pause|resume)\b/i.test(t)),
);

describe("POST /service/commands/statuspilot under fuzzing", () => {
  beforeAll(async () => {
    stack = await startFuzzStack();
  });
  afterAll(async () => stack?.close());

  it("refuses every wrongly signed, stale or unsigned command with 401 and changes nothing", async () => {
    await fuzz(
      fc.record({
        wire: fc.oneof(
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
            .map((b) => ({ body: b, isBase64Encoded: false, decoded: b })),
        ),
        fault: signatureFault,
        type: contentType,
        noise: noiseHeaders,
      }),
      60,
      async ({ wire, fault, type, noise }) => {
        const signed = signatureHeaders(SIG, SECRETS.signing, wire.decoded ?? "", fault);
        const event = eventOf(
          wire.body,
          headers(noise, { "content-type": type }, signed),
          wire.isBase64Encoded,
        );
        const res = await sendAndExpectRefusal(stack, handler, event);
        expect(res.statusCode).toBe(401);
      },
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
          .map((b) => ({ body: b, isBase64Encoded: false, decoded: b })),
        harmlessText
          .map((text) =>
            form({ team_id: ALICE.team, user_id: ALICE.user, command: "/statuspilot", text }),
          )
          .map((b) => ({ body: b, isBase64Encoded: false, decoded: b })),
      ),
      80,
      async (wire) => {
        const signed = signatureHeaders(SIG, SECRETS.signing, wire.decoded ?? "");
        const event = eventOf(
          wire.body,
          headers({ "content-type": "application/x-www-form-urlencoded" }, signed),
          wire.isBase64Encoded,
        );
        await sendAndExpectRefusal(stack, handler, event, ephemeralNoOp);
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
      const event = eventOf(body, signatureHeaders(SIG, SECRETS.signing, body));
      await sendAndExpectRefusal(stack, handler, event, ephemeralNoOp);
    },
  );
});
