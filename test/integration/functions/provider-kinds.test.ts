import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandler as createAdminUsers } from "#functions/http/admin-users";
import { CHANNEL_KINDS, SOURCE_KINDS } from "#lib/calendar/providers/registry";
import { eventFixture, lambdaContext, type Stack, startStack } from "./harness";

let stack: Stack;
const adminUsers = createAdminUsers(() => stack.app);
const ctx = lambdaContext("statuspilot-test-adminUsers");
const call = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> =>
  (await adminUsers(event, ctx)) as APIGatewayProxyStructuredResultV2;
const bodyOf = (res: APIGatewayProxyStructuredResultV2) => JSON.parse(res.body ?? "{}");

/** The fixture's PUT user for U002 with one source `work` of `kind`. */
const putUser = (kind: string): APIGatewayProxyEventV2 => {
  const fixture = eventFixture("admin-put-user.json");
  const body = JSON.parse(fixture.body ?? "{}");
  body.sources = [{ id: "work", url: "https://calendar.example/feeds/work.ics", kind }];
  return { ...fixture, body: JSON.stringify(body) };
};

/** The fixture's PUT channel `channelId` for U002's source `work`, bound for `kind`. */
const putChannel = (channelId: string, kind: string): APIGatewayProxyEventV2 => {
  const fixture = eventFixture("admin-put-channel.json");
  return {
    ...fixture,
    rawPath: `/admin/channels/${channelId}`,
    pathParameters: { channelId },
    body: JSON.stringify({ ...JSON.parse(fixture.body ?? "{}"), kind }),
  };
};

describe("the admin API takes its kinds from the provider registry", () => {
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.close());

  it("accepts a source of every registered kind, and shows it back with that kind", async () => {
    for (const kind of SOURCE_KINDS) {
      const put = await call(putUser(kind));
      expect(put.statusCode, kind).toBe(200);
      expect(bodyOf(put).user.sources, kind).toEqual([{ id: "work", kind }]);
    }
  });

  it("refuses a source kind no provider has, naming the field", async () => {
    const put = await call(putUser("caldav"));
    expect(put.statusCode).toBe(400);
    expect(bodyOf(put)).toMatchObject({ error: "bad_request", pointer: "/sources/0/kind" });
  });

  it("binds a channel for every push kind, and refuses ICS (polled) and unknown kinds", async () => {
    // Prepare
    expect((await call(putUser("ics"))).statusCode).toBe(200);
    // Act, Assess
    for (const kind of CHANNEL_KINDS) {
      const bound = await call(putChannel(`chan-${kind}`, kind));
      expect(bound.statusCode, kind).toBe(200);
      expect(bodyOf(bound), kind).toMatchObject({ channelId: `chan-${kind}`, kind });
    }
    for (const kind of ["ics", "caldav"]) {
      const refused = await call(putChannel(`chan-${kind}`, kind));
      expect(refused.statusCode, kind).toBe(400);
      expect(bodyOf(refused), kind).toMatchObject({ error: "bad_request", pointer: "/kind" });
    }
  });
});
