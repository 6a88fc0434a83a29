import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handler as adminUsers } from "../../../functions/http/admin-users";
import { handler as calendarHooks } from "../../../functions/http/calendar";
import { eventFixture, lambdaContext, type Stack, startStack } from "./harness";

let stack: Stack;
const ctx = lambdaContext("statuspilot-test-adminUsers");
const call = async (
  handler: typeof adminUsers,
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> =>
  (await handler(event, ctx)) as APIGatewayProxyStructuredResultV2;
const bodyOf = (res: APIGatewayProxyStructuredResultV2) => JSON.parse(res.body ?? "{}");

describe("admin onboarding routes against dynalite and the emulator", () => {
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.close());

  it("creates a user with sealed secrets, shows it without them, and queues a first sync", async () => {
    // Act
    const put = await call(adminUsers, eventFixture("admin-put-user.json"));
    const got = await call(adminUsers, eventFixture("admin-get-user.json"));
    // Assess
    expect(put.statusCode).toBe(200);
    expect(bodyOf(put)).toMatchObject({ syncing: 1, user: { tz: "Europe/Lisbon", mode: "auto" } });
    expect(got.statusCode).toBe(200);
    expect(bodyOf(got).user.sources).toEqual([{ id: "work", kind: "google" }]);
    expect(got.body).not.toContain("xoxp-demo-U002");
    expect(got.body).not.toContain("channel-token-1");
    expect(stack.syncs.sent.map((s) => s.message)).toEqual([
      { team: "T0DEMO", user: "U002", sourceId: "work", reason: "manual" },
    ]);
  });

  it("binds a Google channel so its pushes re-sync the source", async () => {
    // Prepare
    await call(adminUsers, eventFixture("admin-put-user.json"));
    const push = eventFixture("hooks-google-sync.json");
    const headers = {
      ...push.headers,
      "x-goog-channel-id": "chan-work-1",
      "x-goog-channel-token": "channel-token-1",
      "x-goog-resource-state": "exists",
    };
    stack.clock.advance(60_000);
    // Act
    const bound = await call(adminUsers, eventFixture("admin-put-channel.json"));
    const pushed = await call(calendarHooks, { ...push, headers });
    // Assess
    expect(bound.statusCode).toBe(200);
    expect(pushed.statusCode).toBe(200);
    expect(bodyOf(pushed)).toEqual({ ok: true, queued: true });
  });

  it("answers a channel for a source the user lacks with 404, and a bad user body with 400", async () => {
    // Prepare
    const channel = eventFixture("admin-put-channel.json");
    const user = eventFixture("admin-put-user.json");
    // Act
    const unknown = await call(adminUsers, {
      ...channel,
      body: JSON.stringify({ team: "T0DEMO", user: "U002", sourceId: "nope" }),
    });
    const badZone = await call(adminUsers, {
      ...user,
      body: JSON.stringify({ tz: "Mars/Olympus", token: "x", sources: [] }),
    });
    const missing = await call(adminUsers, { ...user, body: JSON.stringify({ tz: "UTC" }) });
    // Assess
    expect(unknown.statusCode).toBe(404);
    expect(bodyOf(unknown)).toMatchObject({ error: "unknown_source" });
    expect(badZone.statusCode).toBe(400);
    expect(bodyOf(badZone)).toMatchObject({ error: "invalid_input", pointer: "/tz" });
    expect(missing.statusCode).toBe(400);
    expect(bodyOf(missing).pointer).toBe("/token");
  });

  it("answers an unknown user with 404 and refuses callers without the key", async () => {
    // Prepare
    const get = eventFixture("admin-get-user.json");
    // Act
    const stranger = await call(adminUsers, {
      ...get,
      pathParameters: { team: "T0DEMO", user: "U404" },
    });
    const { "x-api-key": _dropped, ...headers } = get.headers;
    const anonymous = await call(adminUsers, { ...get, headers });
    // Assess
    expect(stranger.statusCode).toBe(404);
    expect(anonymous.statusCode).toBe(401);
  });
});
