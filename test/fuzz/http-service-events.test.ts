import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createHandler } from "#functions/http/events";
import {
  contentType,
  garbageBody,
  headers,
  invoke,
  OVERSIZED_IDS,
  plainWire,
  signatureHeaders,
} from "./support/requests";
import {
  expectBadSignaturesRefused,
  SERVICE_SIG,
  signedEvent,
  signedRouteUnderFuzz,
} from "./support/service-signed";
import { SECRETS, userChangeFixtureBody } from "./support/stack";
import { contentTypeOf, fuzz, type NoOp, sendAndExpectRefusal } from "./support/verdict";

const target = signedRouteUnderFuzz(createHandler, "/service/events");
const { handler, eventOf } = target;

/** The documented 200s of a correctly signed request that records nothing. */
const serviceNoOp: NoOp = (res, body) => {
  if (contentTypeOf(res).startsWith("text/plain")) return "url_verification echo";
  const reply = (body ?? {}) as { ok?: unknown; ignored?: unknown; duplicate?: unknown };
  if (reply.ok === true && typeof reply.ignored === "string") return "ignored event type or user";
  if (reply.ok === true && reply.duplicate === true) return "duplicate event_id";
  return undefined;
};

/** Signed JSON envelopes near the real shape, with fields dropped, mistyped or oversized. */
const nearEnvelope = fc
  .record(
    {
      type: fc.oneof(
        fc.constantFrom("event_callback", "url_verification", "app_rate_limited", "", "EVENT"),
        fc.string({ maxLength: 20 }),
      ),
      team_id: fc.oneof(fc.constantFrom("T0DEMO", "", "T".repeat(3000)), fc.string(), fc.integer()),
      event_id: fc.oneof(fc.constantFrom("", "Ev".repeat(1500)), fc.string(), fc.integer()),
      event_time: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(-1)),
      challenge: fc.oneof(fc.string(), fc.constantFrom("", "c".repeat(1001)), fc.integer()),
      event: fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.record(
          {
            type: fc.constantFrom("user_change", "message", "", "team_join"),
            user: fc.oneof(
              fc.jsonValue({ maxDepth: 2 }),
              fc.record(
                {
                  // Never Alice: a valid change for a registered user would be recorded.
                  id: fc.oneof(fc.constantFrom("", "UFUZZ", "U".repeat(3000)), fc.integer()),
                  team_id: fc.oneof(fc.constantFrom("", "T0DEMO", "T".repeat(3000)), fc.integer()),
                  tz: fc.oneof(fc.string(), fc.constantFrom("", "Mars/Olympus")),
                  profile: fc.oneof(
                    fc.jsonValue({ maxDepth: 2 }),
                    fc.record(
                      {
                        status_text: fc.oneof(fc.string(), fc.integer()),
                        status_emoji: fc.oneof(fc.string(), fc.constant(null)),
                        status_expiration: fc.oneof(fc.integer(), fc.double(), fc.string()),
                      },
                      { requiredKeys: [] },
                    ),
                  ),
                },
                { requiredKeys: [] },
              ),
            ),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  )
  .map((doc) => JSON.stringify(doc));

describe("POST /service/events under fuzzing", () => {
  it("refuses every wrongly signed, stale or unsigned request with 401 and changes nothing", async () => {
    await expectBadSignaturesRefused(target, garbageBody, 80);
  });

  it("answers correctly signed garbage with 400, or 200 only for a documented no-op", async () => {
    await fuzz(
      fc.record({
        wire: fc.oneof(garbageBody, nearEnvelope.map(plainWire)),
        type: contentType,
      }),
      100,
      async ({ wire, type }) => {
        // Prepare
        const event = signedEvent(eventOf, wire, type);
        // Act + Assess
        // Signed as the service signs: refused for what it says, never for its signature.
        const res = await sendAndExpectRefusal(target.stack, handler, event, serviceNoOp);
        expect(res.statusCode).not.toBe(401);
      },
    );
  });

  it("answers a replayed event_id with 200 duplicate whatever the replay carries", async () => {
    // Prepare: record the fixture's change once, outside the property.
    const original = userChangeFixtureBody();
    const first = await invoke(
      handler,
      eventOf(original, signatureHeaders(SERVICE_SIG, SECRETS.signing, original)),
    );
    expect(first.statusCode).toBe(200);
    const doc = JSON.parse(original) as {
      event: { user: { profile: Record<string, unknown> } };
    };
    await fuzz(
      fc.record({
        text: fc.string({ maxLength: 100 }),
        emoji: fc.constantFrom(":x:", ":sandwich:", ""),
        expiration: fc.nat(),
        retry: fc.constantFrom(undefined, "1", "2", "3", "x"),
      }),
      40,
      async ({ text, emoji, expiration, retry }) => {
        const replay = structuredClone(doc);
        replay.event.user.profile = {
          status_text: text,
          status_emoji: emoji,
          status_expiration: expiration,
        };
        const body = JSON.stringify(replay);
        const event = eventOf(
          body,
          headers(
            { "x-svc-retry-num": retry },
            signatureHeaders(SERVICE_SIG, SECRETS.signing, body),
          ),
        );
        // Act
        const res = await sendAndExpectRefusal(target.stack, handler, event, serviceNoOp);
        // Assess
        expect(res.statusCode).toBe(200);
      },
    );
  });

  // A signed user_change whose event_id, user.id or user.team_id is longer than DynamoDB's
  // 2048-byte key limit must be refused with 400 before recording (a 500 would make the
  // service retry it three times).
  const oversized = OVERSIZED_IDS.flatMap((id) =>
    (["event_id", "user.id", "user.team_id"] as const).map((field) => ({
      field,
      length: id.length,
      id,
    })),
  );
  it.each(oversized)(
    "answers a signed user_change with a $length-character $field with 4xx instead of a 500",
    async ({ field, id }) => {
      const doc = JSON.parse(userChangeFixtureBody()) as {
        event_id: string;
        event: { user: { id: string; team_id: string } };
      };
      doc.event_id = `${field}-${id.length}`;
      if (field === "event_id") doc.event_id = id;
      if (field === "user.id") doc.event.user.id = id;
      if (field === "user.team_id") doc.event.user.team_id = id;
      const body = JSON.stringify(doc);
      await sendAndExpectRefusal(
        target.stack,
        handler,
        eventOf(body, signatureHeaders(SERVICE_SIG, SECRETS.signing, body)),
        serviceNoOp,
      );
    },
  );

  it("writes log lines while fuzzing, so the no-secret check has something to read", () => {
    expect(target.stack.logs.lines.length).toBeGreaterThan(0);
  });
});
