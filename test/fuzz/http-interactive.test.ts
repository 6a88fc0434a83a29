import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createHandler } from "#functions/http/interactive";
import { HOME_ACTIONS } from "#lib/app/notify/home-blocks";
import { garbageBody, plainWire } from "./support/requests";
import {
  expectBadSignaturesRefused,
  form,
  signedEvent,
  signedRouteUnderFuzz,
} from "./support/service-signed";
import { ALICE } from "./support/stack";
import { fuzz, type NoOp, sendAndExpectRefusal } from "./support/verdict";

// POST /service/interactive (lib/webhooks/interactive.ts): a Home tab or message click, signed
// like the events, its JSON in the form's one field `payload`.

const target = signedRouteUnderFuzz(createHandler, "/service/interactive");
const { handler, eventOf } = target;

/** A click's payload as the platform sends it. */
const click = (team: string, user: string, actionIds: string[]): string =>
  form({
    payload: JSON.stringify({
      type: "block_actions",
      team: { id: team },
      user: { id: user, team_id: team },
      actions: actionIds.map((action_id) => ({ action_id, value: "x" })),
    }),
  });

/** The service's wanted answer: an empty 200 (or, for another type, a 200 that ignores it). */
const acknowledged: NoOp = (res) => (res.statusCode === 200 ? "acknowledged" : undefined);

describe("POST /service/interactive under fuzzing", () => {
  it("refuses every wrongly signed, stale or unsigned click with 401 and changes nothing", async () => {
    await expectBadSignaturesRefused(
      target,
      // Alice's Pause, which would change her mode were it signed correctly.
      fc.oneof(garbageBody, fc.constant(plainWire(click(ALICE.team, ALICE.user, ["pause"])))),
      60,
    );
  });

  it("answers correctly signed malformed forms and payloads with 400, and others' clicks with a 200 that changes nothing", async () => {
    const id = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom("", "T0DEMO", "U001", "UNKNOWN9", "a".repeat(300)),
    );
    // Clicks of people Statuspilot does not know, or that ask nothing of it.
    const harmlessClick = fc
      .record({
        team: id,
        user: id.filter((u) => u !== ALICE.user),
        actions: fc.array(
          fc.oneof(fc.constantFrom(...Object.values(HOME_ACTIONS)), fc.string({ maxLength: 40 })),
          { maxLength: 4 },
        ),
      })
      .map(({ team, user, actions }) => plainWire(click(team, user, actions)));
    const odd = fc.oneof(
      garbageBody,
      fc.jsonValue({ maxDepth: 3 }).map((v) => plainWire(form({ payload: JSON.stringify(v) }))),
      fc.string({ maxLength: 100 }).map((p) => plainWire(form({ payload: p }))),
      fc.constant(plainWire(form({ payload: "x".repeat(400_001) }))),
      // Alice's click on a link button (Reconnect): the browser opens it, the click asks nothing.
      fc.constant(plainWire(click(ALICE.team, ALICE.user, [HOME_ACTIONS.reconnect]))),
    );
    await fuzz(fc.oneof(harmlessClick, odd), 80, async (wire) => {
      const event = signedEvent(eventOf, wire);
      // Signed as the service signs: refused for what it says, never for its signature.
      const res = await sendAndExpectRefusal(target.stack, handler, event, acknowledged);
      expect(res.statusCode).not.toBe(401);
    });
  });
});
