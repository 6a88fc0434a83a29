import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Route } from "#functions/routes";
import { ADMIN_ROUTES, adminHandlers, paramNames } from "./support/admin-routes";
import {
  type AnyHandler,
  apiEvent,
  garbageBody,
  headers,
  noiseHeaders,
  pathValue,
} from "./support/requests";
import { ALICE, type FuzzStack, NOW_MS, SECRETS, startFuzzStack } from "./support/stack";
import { fuzz, sendAndExpectRefusal } from "./support/verdict";

/** As deployed on AWS: no ADMIN_API_KEY, so only API Gateway's IAM authorizer lets a call in. */
let handlers: Map<Route, AnyHandler>;
let stack: FuzzStack;

/** Authorizer contexts that do not name an IAM caller: absent, empty, or another kind. */
const notIam = fc.constantFrom<unknown>(
  undefined,
  {},
  { iam: {} },
  { iam: { userArn: "" } },
  { iam: { accessKey: "AKIAEXAMPLE", accountId: "123456789012" } },
  { jwt: { claims: { sub: "ops" }, scopes: null } },
  { lambda: { userArn: "arn:aws:iam::123456789012:user/ops" } },
  { principalId: "arn:aws:iam::123456789012:user/ops" },
);

describe("admin API without an API key (IAM authorization) under fuzzing", () => {
  beforeAll(async () => {
    stack = await startFuzzStack({ adminApiKey: false });
    handlers = await adminHandlers(stack);
  });
  afterAll(async () => stack?.close());

  it("refuses every admin call that carries no IAM caller with 403, whatever key it sends", async () => {
    await fuzz(
      fc.constantFrom(...ADMIN_ROUTES).chain((route) =>
        fc.record({
          route: fc.constant(route),
          authorizer: notIam,
          key: fc.constantFrom(undefined, SECRETS.adminKey, "", "anything"),
          alice: fc.boolean(),
          params: fc.record(Object.fromEntries(paramNames(route).map((n) => [n, pathValue]))),
          wire: garbageBody,
          noise: noiseHeaders,
        }),
      ),
      60,
      async ({ route, authorizer, key, alice, params, wire, noise }) => {
        // Prepare: Alice's paths with an acceptable body half the time, so a bypass would act.
        const body = alice
          ? JSON.stringify({ start: NOW_MS + 3_600_000, end: NOW_MS + 7_200_000 })
          : wire.body;
        const event = apiEvent({
          method: route.method,
          route: route.path,
          rawPath: route.path,
          params: alice ? { ...params, ...ALICE } : params,
          headers: headers(noise, { "x-api-key": key }),
          ...(body !== undefined ? { body } : {}),
          isBase64Encoded: alice ? false : wire.isBase64Encoded,
        });
        const withAuthorizer =
          authorizer === undefined
            ? event
            : { ...event, requestContext: { ...event.requestContext, authorizer } };
        // Act
        const res = await sendAndExpectRefusal(
          stack,
          handlers.get(route) as AnyHandler,
          withAuthorizer,
        );
        // Assess
        expect(res.statusCode).toBe(403);
      },
    );
  });
});
