import type { APIGatewayProxyEventV2 } from "aws-lambda";
import fc from "fast-check";
import { afterAll, beforeAll, expect } from "vitest";
import type { AppSource } from "#lib/app/compose/app";
import {
  type AnyHandler,
  apiEvent,
  contentType,
  headers,
  noiseHeaders,
  signatureFault,
  signatureHeaders,
  type WireBody,
} from "./requests";
import { type FuzzStack, SECRETS, startFuzzStack } from "./stack";
import { fuzz, type NoOp, sendAndExpectRefusal } from "./verdict";

/** The headers the service signs its requests (events, slash commands) with. */
export const SERVICE_SIG = { timestamp: "x-svc-request-timestamp", signature: "x-svc-signature" };

/** A POST the service sends to `route`, with the given headers and body as it is on the wire. */
export const servicePost =
  (route: string) =>
  (
    body: string | undefined,
    extra: Record<string, string>,
    isBase64Encoded = false,
  ): APIGatewayProxyEventV2 =>
    apiEvent({
      method: "POST",
      route,
      rawPath: route,
      headers: extra,
      ...(body !== undefined ? { body } : {}),
      isBase64Encoded,
    });

/** What a signed route's fuzz tests drive: the stack, the route's handler over it, its POSTs. */
export interface SignedTarget {
  stack: FuzzStack;
  handler: AnyHandler;
  eventOf: ReturnType<typeof servicePost>;
}

/**
 * A test file's signed route: a fuzz stack started before the file's tests and closed after
 * them, and the handler `createHandler` makes over it.
 */
export function signedRouteUnderFuzz(
  createHandler: (source: AppSource) => AnyHandler,
  route: string,
): SignedTarget {
  const target: SignedTarget = {
    stack: undefined as unknown as FuzzStack,
    handler: createHandler(() => target.stack.app),
    eventOf: servicePost(route),
  };
  beforeAll(async () => {
    target.stack = await startFuzzStack();
  });
  afterAll(async () => target.stack?.close());
  return target;
}

/** A slash command's form body; absent fields are left out. */
export const form = (fields: Record<string, string | undefined>): string => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) params.append(k, v);
  return params.toString();
};

/** A slash command's answer to a user: ephemeral text, shown only to them. */
export const ephemeralNoOp: NoOp = (res, body) => {
  const reply = body as { response_type?: unknown; text?: unknown } | undefined;
  return res.statusCode === 200 &&
    reply?.response_type === "ephemeral" &&
    typeof reply.text === "string" &&
    reply.text !== ""
    ? "ephemeral answer"
    : undefined;
};

/** `wire` signed correctly as the service signs it, sent as `type` (a form by default). */
export const signedEvent = (
  eventOf: ReturnType<typeof servicePost>,
  wire: WireBody,
  type = "application/x-www-form-urlencoded",
): APIGatewayProxyEventV2 => {
  const signed = signatureHeaders(SERVICE_SIG, SECRETS.signing, wire.decoded ?? "");
  return eventOf(wire.body, headers({ "content-type": type }, signed), wire.isBase64Encoded);
};

/**
 * Fuzzes `wire` bodies wrongly signed, stale or unsigned (any content type, noise headers) and
 * expects each refused with 401, nothing changed.
 */
export async function expectBadSignaturesRefused(
  target: SignedTarget,
  wire: fc.Arbitrary<WireBody>,
  numRuns: number,
): Promise<void> {
  await fuzz(
    fc.record({ wire, fault: signatureFault, type: contentType, noise: noiseHeaders }),
    numRuns,
    async ({ wire, fault, type, noise }) => {
      // Prepare
      const signed = signatureHeaders(SERVICE_SIG, SECRETS.signing, wire.decoded ?? "", fault);
      const event = target.eventOf(
        wire.body,
        headers(noise, { "content-type": type }, signed),
        wire.isBase64Encoded,
      );
      // Act
      const res = await sendAndExpectRefusal(target.stack, target.handler, event);
      // Assess
      expect(res.statusCode).toBe(401);
    },
  );
}
