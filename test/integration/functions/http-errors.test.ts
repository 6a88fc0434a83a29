import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandler as createAdmin } from "#functions/http/admin";
import { createHandler as createAdminUsers } from "#functions/http/admin-users";
import { routes } from "#functions/routes";
import { errorToResult } from "#functions/shared/http-errors";
import { DynamoStore } from "#lib/store/dynamo-store";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";
import { eventFixture, lambdaContext, type Stack, startStack } from "./harness";

const bodyOf = (res: APIGatewayProxyStructuredResultV2) => JSON.parse(res.body ?? "{}");

/** What a real DynamoStore throws when asked for a channel id over the 2048-byte key limit. */
async function storeErrorFrom(client: DynamoDBClient, tableName: string): Promise<unknown> {
  try {
    await new DynamoStore(client, tableName).getChannel("c".repeat(3000));
  } catch (error: unknown) {
    return error;
  }
  throw new Error("the store accepted an oversized key");
}

describe("errorToResult against a real store", () => {
  let dynamo: LocalDynamo;
  beforeAll(async () => {
    dynamo = await startDynalite();
  });
  afterAll(async () => dynamo?.close());

  it("answers DynamoDB's ValidationException for an oversized key with 400, not 500", async () => {
    // Prepare
    const error = await storeErrorFrom(dynamo.client, dynamo.tableName);
    // Act
    const res = errorToResult(error, undefined);
    // Assess
    expect(res.statusCode).toBe(400);
    expect(bodyOf(res)).toMatchObject({ error: "invalid_input" });
  });

  it("still answers 500 when DynamoDB cannot be reached, so the caller retries", async () => {
    // Prepare: nothing listens on port 9 (discard) on loopback.
    const down = new DynamoDBClient({
      endpoint: "http://127.0.0.1:9",
      region: "us-east-1",
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
      maxAttempts: 1,
    });
    const error = await storeErrorFrom(down, dynamo.tableName);
    // Act
    const res = errorToResult(error, undefined);
    // Assess
    expect(res.statusCode).toBe(500);
    expect(bodyOf(res)).toEqual({ error: "internal_error" });
  });
});

describe("admin handlers refuse undeclared methods", () => {
  let stack: Stack;
  const admin = createAdmin(() => stack.app);
  const adminUsers = createAdminUsers(() => stack.app);
  const ctx = lambdaContext("statuspilot-test-admin");
  const call = async (
    handler: typeof admin,
    event: APIGatewayProxyEventV2,
    method: string,
  ): Promise<APIGatewayProxyStructuredResultV2> =>
    (await handler(
      {
        ...event,
        requestContext: { ...event.requestContext, http: { ...event.requestContext.http, method } },
      },
      ctx,
    )) as APIGatewayProxyStructuredResultV2;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.close());

  it("answers PATCH on the out-of-office collection with 405 naming GET and POST, scheduling nothing", async () => {
    // Act
    const res = await call(admin, eventFixture("admin-post-ooo.json"), "PATCH");
    const listed = await call(admin, eventFixture("admin-get-ooo.json"), "GET");
    // Assess
    expect(res.statusCode).toBe(405);
    expect(res.headers?.allow).toBe("GET, POST");
    expect(bodyOf(res)).toMatchObject({ error: "method_not_allowed" });
    expect(bodyOf(listed)).toEqual({ entries: [] });
  });

  it("answers GET on one out-of-office entry with 405 naming DELETE", async () => {
    const res = await call(admin, eventFixture("admin-delete-ooo.json"), "GET");
    expect(res.statusCode).toBe(405);
    expect(res.headers?.allow).toBe("DELETE");
  });

  it("answers DELETE on a user and GET on a channel with 405, touching neither", async () => {
    // Act
    const deleteUser = await call(adminUsers, eventFixture("admin-put-user.json"), "DELETE");
    const getChannel = await call(adminUsers, eventFixture("admin-put-channel.json"), "GET");
    const user = await call(adminUsers, eventFixture("admin-get-user.json"), "GET");
    // Assess
    expect([deleteUser.statusCode, getChannel.statusCode]).toEqual([405, 405]);
    expect(deleteUser.headers?.allow).toBe("GET, PUT");
    expect(getChannel.headers?.allow).toBe("PUT");
    expect(user.statusCode).toBe(404);
    expect(stack.syncs.sent).toEqual([]);
  });

  it("declares in its handlers exactly the methods routes.ts routes to them", async () => {
    // Prepare
    const { COLLECTION_METHODS, ENTRY_METHODS } = await import("#functions/http/admin");
    const { USER_METHODS, CHANNEL_METHODS } = await import("#functions/http/admin-users");
    const methodsOf = (path: string) =>
      routes
        .filter((r) => r.path === path)
        .map((r) => r.method)
        .sort();
    // Assess
    expect(methodsOf("/admin/users/{team}/{user}/ooo")).toEqual([...COLLECTION_METHODS].sort());
    expect(methodsOf("/admin/users/{team}/{user}/ooo/{id}")).toEqual([...ENTRY_METHODS].sort());
    expect(methodsOf("/admin/users/{team}/{user}")).toEqual([...USER_METHODS].sort());
    expect(methodsOf("/admin/channels/{channelId}")).toEqual([...CHANNEL_METHODS].sort());
  });
});
