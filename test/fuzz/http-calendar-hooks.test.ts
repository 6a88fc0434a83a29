import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandler } from "#functions/http/calendar";
import {
  apiEvent,
  contentType,
  garbageBody,
  headers,
  noiseHeaders,
  OVERSIZED_IDS,
  pathValue,
  plainWire,
  signatureFault,
  signatureHeaders,
  smuggledHookId,
} from "./support/requests";
import { ALICE, CHANNELS, type FuzzStack, SECRETS, startFuzzStack } from "./support/stack";
import { contentTypeOf, fuzz, type NoOp, sendAndExpectRefusal } from "./support/verdict";

let stack: FuzzStack;
const handler = createHandler(() => stack.app);

/** The segment as a client would encode it; a lone surrogate cannot be, so it goes raw. */
function pathSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A token or clientState that is anything but the right one (or absent). */
const wrongSecret = (right: string) =>
  fc.oneof(
    fc.constant(undefined),
    fc.string({ maxLength: 60 }).filter((s) => s !== right),
    fc.constantFrom("", right.toUpperCase(), `${right} `, right.slice(0, -1), `${right}\u0000`),
  );

const googleHandshake: NoOp = (_res, body) =>
  (body as { handshake?: unknown } | undefined)?.handshake === true ? "sync handshake" : undefined;

const graphValidation: NoOp = (res) =>
  contentTypeOf(res).startsWith("text/plain") ? "validationToken echo" : undefined;

describe("calendar hooks under fuzzing", () => {
  beforeAll(async () => {
    stack = await startFuzzStack();
    // Bound again as admin PUT now binds new channels: each for the hook it belongs to.
    const pilot = stack.app.pilot;
    if (!pilot) throw new Error("the composition root built no StatusPilot");
    const source = { key: ALICE, sourceId: "office" };
    await pilot.putChannel(CHANNELS.google, {
      ...source,
      secret: SECRETS.googleToken,
      kind: "google",
    });
    await pilot.putChannel(CHANNELS.graph, {
      ...source,
      secret: SECRETS.graphClientState,
      kind: "graph",
    });
    await pilot.putChannel(CHANNELS.generic, {
      ...source,
      secret: SECRETS.genericHook,
      kind: "generic",
    });
    await pilot.putChannel(CHANNELS.genericNoSecret, {
      key: ALICE,
      sourceId: "private",
      kind: "generic",
    });
  });
  afterAll(async () => stack?.close());

  describe("POST /hooks/google", () => {
    it("refuses missing headers, unknown channels and wrong channel tokens, and enqueues nothing", async () => {
      await fuzz(
        fc.record({
          channelId: fc.oneof(
            fc.constant(undefined),
            fc.constant(CHANNELS.google),
            fc.constant(CHANNELS.graph),
            pathValue,
          ),
          token: wrongSecret(SECRETS.googleToken),
          state: fc.oneof(
            fc.constant(undefined),
            fc.constantFrom("exists", "not_exists", "sync", ""),
            fc.string({ maxLength: 20 }),
          ),
          wire: garbageBody,
          noise: noiseHeaders,
        }),
        80,
        async ({ channelId, token, state, wire, noise }) => {
          // Prepare
          const event = apiEvent({
            method: "POST",
            route: "/hooks/google",
            rawPath: "/hooks/google",
            headers: headers(noise, {
              "x-goog-channel-id": channelId,
              "x-goog-channel-token": token,
              "x-goog-resource-state": state,
            }),
            ...(wire.body !== undefined ? { body: wire.body } : {}),
            isBase64Encoded: wire.isBase64Encoded,
          });
          // Act
          const res = await sendAndExpectRefusal(stack, handler, event);
          // Assess
          expect([400, 401, 404]).toContain(res.statusCode);
        },
      );
    });

    it("acknowledges the sync handshake with the right token and enqueues nothing", async () => {
      await fuzz(
        fc.record({ wire: garbageBody, noise: noiseHeaders }),
        20,
        async ({ wire, noise }) => {
          const event = apiEvent({
            method: "POST",
            route: "/hooks/google",
            rawPath: "/hooks/google",
            headers: headers(noise, {
              "x-goog-channel-id": CHANNELS.google,
              "x-goog-channel-token": SECRETS.googleToken,
              "x-goog-resource-state": "sync",
            }),
            ...(wire.body !== undefined ? { body: wire.body } : {}),
            isBase64Encoded: wire.isBase64Encoded,
          });
          const res = await sendAndExpectRefusal(stack, handler, event, (r, b) =>
            // Noise headers may override ours (a later X-Goog-Channel-Token wins), so a 4xx is fine.
            r.statusCode === 200 ? googleHandshake(r, b) : undefined,
          );
          expect(res.statusCode).toBeLessThan(500);
        },
      );
    });
  });

  describe("POST /hooks/graph", () => {
    /** Notifications none of which authenticates: unknown, mistyped or wrongly stated. */
    const badNotification = fc.oneof(
      fc.record(
        {
          subscriptionId: fc.oneof(
            fc.constant(CHANNELS.graph),
            fc.constant(CHANNELS.google),
            pathValue,
          ),
          clientState: wrongSecret(SECRETS.graphClientState),
          changeType: fc.constantFrom("created", "updated", "deleted", "nonsense"),
          lifecycleEvent: fc.constantFrom(
            "reauthorizationRequired",
            "subscriptionRemoved",
            "missed",
          ),
        },
        { requiredKeys: ["subscriptionId"] },
      ),
      // Without clientState at all, even for the right subscription.
      fc.record({ subscriptionId: fc.constant(CHANNELS.graph) }),
      fc.jsonValue({ maxDepth: 2 }),
    );

    it("refuses garbage and unauthenticated notifications with 4xx and enqueues nothing", async () => {
      await fuzz(
        fc.record({
          wire: fc.oneof(
            garbageBody,
            fc
              .array(badNotification, { minLength: 0, maxLength: 5 })
              .map((value) => JSON.stringify({ value }))
              .map(plainWire),
          ),
          type: contentType,
          noise: noiseHeaders,
        }),
        100,
        async ({ wire, type, noise }) => {
          const event = apiEvent({
            method: "POST",
            route: "/hooks/graph",
            rawPath: "/hooks/graph",
            headers: headers(noise, { "content-type": type }),
            ...(wire.body !== undefined ? { body: wire.body } : {}),
            isBase64Encoded: wire.isBase64Encoded,
          });
          await sendAndExpectRefusal(stack, handler, event, (res, body) => {
            // An empty `value` array authenticates nothing and queues nothing: a 202 no-op.
            const reply = body as { ok?: unknown; queued?: unknown } | undefined;
            return res.statusCode === 202 && reply?.queued === 0 ? "nothing to queue" : undefined;
          });
        },
      );
    });

    it("echoes a validationToken shaped like Graph's as text, refuses any other, and touches nothing", async () => {
      // Graph's shape (its docs: an opaque token; what it sends reads like the constant below),
      // random base64, and anything at all: markup, quotes, controls, the empty string.
      const graphShaped = fc.oneof(
        fc
          .uuid()
          .map(
            (id) =>
              `Validation: Testing client application reachability for subscription Request-Id: ${id}`,
          ),
        fc.base64String({ minLength: 4, maxLength: 200 }),
      );
      const anyToken = fc.oneof(
        fc.string({ maxLength: 500 }),
        fc.constantFrom(
          "",
          "<script>alert(1)</script>",
          '"><svg onload=alert(1)>',
          "a&b",
          "x".repeat(1025),
        ),
      );
      await fuzz(
        fc.record({ token: fc.oneof(graphShaped, anyToken), wire: garbageBody }),
        40,
        async ({ token, wire }) => {
          const event = apiEvent({
            method: "POST",
            route: "/hooks/graph",
            rawPath: "/hooks/graph",
            headers: { "content-type": "text/plain; charset=utf-8" },
            query: { validationToken: token },
            ...(wire.body !== undefined ? { body: wire.body } : {}),
            isBase64Encoded: wire.isBase64Encoded,
          });
          const res = await sendAndExpectRefusal(stack, handler, event, graphValidation);
          // The oracle, restated: only Graph's characters, 1 to 1024 of them.
          const alphabet = new Set(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 -_.:=+/",
          );
          const looksLikeOne =
            token.length >= 1 && token.length <= 1024 && [...token].every((c) => alphabet.has(c));
          expect(res.statusCode).toBe(looksLikeOne ? 200 : 400);
          if (looksLikeOne) expect(res.body).toBe(token);
        },
      );
    });
  });

  describe("POST /hooks/generic/{sourceId}", () => {
    it("refuses unknown sources, other hooks' channels and bad signatures with 4xx", async () => {
      const SIG = { timestamp: "x-statuspilot-timestamp", signature: "x-statuspilot-signature" };
      await fuzz(
        fc.record({
          sourceId: fc.oneof(
            fc.constant(CHANNELS.generic),
            fc.constant(CHANNELS.genericNoSecret),
            fc.constant(CHANNELS.google),
            fc.constant(CHANNELS.graph),
            pathValue,
          ),
          fault: signatureFault,
          // The service's secret and the source's feed secret are not this hook's secret, and
          // a Google channel's token signs nothing here: its binding is for the Google hook.
          secret: fc.constantFrom(
            SECRETS.genericHook,
            SECRETS.signing,
            SECRETS.sourceSecret,
            SECRETS.googleToken,
            SECRETS.graphClientState,
          ),
          wire: garbageBody,
          noise: noiseHeaders,
        }),
        100,
        async ({ sourceId, fault, secret, wire, noise }) => {
          const sigHeaders = signatureHeaders(
            SIG,
            secret,
            wire.decoded ?? "",
            secret === SECRETS.genericHook ? fault : undefined,
          );
          const event = apiEvent({
            method: "POST",
            route: "/hooks/generic/{sourceId}",
            rawPath: `/hooks/generic/${pathSegment(sourceId)}`,
            params: { sourceId },
            headers: headers(noise, sigHeaders),
            ...(wire.body !== undefined ? { body: wire.body } : {}),
            isBase64Encoded: wire.isBase64Encoded,
          });
          const res = await sendAndExpectRefusal(stack, handler, event);
          expect([401, 403, 404]).toContain(res.statusCode);
        },
      );
    });
  });

  // API Gateway decodes `%2F` in rawPath, so `/hooks/generic/x%2Fhooks%2Fgraph` arrives with a
  // rawPath ending in `/hooks/graph`. It matched the generic route: it must be answered as the
  // generic hook, never with the Graph echo or through a Google channel's token.
  it("answers a generic hook id that ends like another hook's route as the generic hook", async () => {
    await fuzz(
      fc.record({
        sourceId: smuggledHookId,
        validationToken: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
        google: fc.boolean(),
        wire: garbageBody,
      }),
      60,
      async ({ sourceId, validationToken, google, wire }) => {
        const event = apiEvent({
          method: "POST",
          route: "/hooks/generic/{sourceId}",
          rawPath: `/hooks/generic/${sourceId}`,
          params: { sourceId },
          ...(validationToken !== undefined ? { query: { validationToken } } : {}),
          headers: google
            ? {
                "x-goog-channel-id": CHANNELS.google,
                "x-goog-channel-token": SECRETS.googleToken,
                "x-goog-resource-state": "exists",
              }
            : { "content-type": "application/json" },
          ...(wire.body !== undefined ? { body: wire.body } : {}),
          isBase64Encoded: wire.isBase64Encoded,
        });
        // The generic hook's refusal: nothing here is signed with the id's channel token.
        const res = await sendAndExpectRefusal(stack, handler, event);
        expect(res.statusCode).toBe(401);
      },
    );
  });

  // An id longer than DynamoDB's 2048-byte partition key must not reach the store (it would
  // answer ValidationException). Channel ids are at most 255 characters, through
  // X-Goog-Channel-ID, a Graph subscriptionId and the generic {sourceId} alike.
  const oversizedCases = OVERSIZED_IDS.flatMap((id) => [
    {
      via: "X-Goog-Channel-ID",
      length: id.length,
      event: apiEvent({
        method: "POST",
        route: "/hooks/google",
        rawPath: "/hooks/google",
        headers: { "x-goog-channel-id": id, "x-goog-resource-state": "exists" },
      }),
    },
    {
      via: "Graph subscriptionId",
      length: id.length,
      event: apiEvent({
        method: "POST",
        route: "/hooks/graph",
        rawPath: "/hooks/graph",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ value: [{ subscriptionId: id, clientState: "x" }] }),
      }),
    },
    {
      via: "generic {sourceId}",
      length: id.length,
      event: apiEvent({
        method: "POST",
        route: "/hooks/generic/{sourceId}",
        rawPath: "/hooks/generic/x",
        params: { sourceId: id },
        headers: {},
      }),
    },
  ]);
  it.each(oversizedCases)(
    "refuses a $length-character channel id in $via with 4xx instead of a 500",
    async ({ event }) => {
      await sendAndExpectRefusal(stack, handler, event);
    },
  );

  it("wrote log lines while fuzzing, so the no-secret check had something to read", () => {
    expect(stack.logs.lines.length).toBeGreaterThan(0);
  });
});
