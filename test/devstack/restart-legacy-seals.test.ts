import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { ManualClock } from "#lib/core/clock";
import { type LocalStack, startStack, TABLE_NAME } from "#lib/local/stack";
import { DynamoStore } from "#lib/store/dynamo-store";
import { demoStackOptions } from "../support/demo-stack";
import { oldLocalSeal } from "../support/legacy-seals";
import { keptStateAndFeed } from "./kept-state";

// A local stack kept in a state directory by a version from before owners were bound holds its
// users' tokens in the old format: restarted after the upgrade, it seals them again under their
// owner at start, so its users keep working.

const _repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const T0 = Date.parse("2025-03-10T10:59:00.000Z");
const _U001 = { team: "T0DEMO", user: "U001" };
/** Registered over the admin API, so a restart does not register it again from the config. */
const U002 = { team: "T0DEMO", user: "U002" };

describe("a kept local stack restarted after owners were bound", () => {
  const clock = new ManualClock(T0);
  const kept = keptStateAndFeed(clock, "/U.ics");

  const start = (fresh: boolean): Promise<LocalStack> =>
    startStack(demoStackOptions(kept.feedUrl(), clock, { stateDir: kept.stateDir, fresh }));
  const storeOf = (stack: LocalStack) => {
    const client = new DynamoDBClient({
      endpoint: stack.dynamoEndpoint,
      region: "us-east-1",
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    });
    return { store: new DynamoStore(client, TABLE_NAME), close: () => client.destroy() };
  };

  it("seals an old-format token again under its owner at start", async () => {
    // Prepare: the kept state holds U002's token sealed the old way
    const first = await start(true);
    const put = await fetch(`${first.url}/admin/users/T0DEMO/U002`, {
      method: "PUT",
      headers: { "content-type": "application/json", "x-api-key": first.adminApiKey },
      body: JSON.stringify({
        tz: "Europe/Lisbon",
        token: "xoxp-demo-U002",
        sources: [{ id: "work", url: kept.feedUrl(), kind: "ics" }],
      }),
    });
    expect(put.status).toBeLessThan(300);
    const tokenKey = (
      JSON.parse(readFileSync(path.join(kept.stateDir, "state.json"), "utf8")) as {
        tokenKey: string;
      }
    ).tokenKey;
    const before = storeOf(first);
    const user = await before.store.getUser(U002);
    if (!user) throw new Error("U002 was not registered");
    await before.store.putUser(
      { ...user, tokenSealed: oldLocalSeal(tokenKey, "xoxp-demo-U002") },
      user.version,
    );
    before.close();
    await first.close();
    // Act
    const second = await start(false);
    const after = storeOf(second);
    try {
      // Assess
      const migrated = await after.store.getUser(U002);
      expect(
        await new LocalTokenVault(tokenKey).read(migrated?.tokenSealed ?? "", {
          ...U002,
          field: "access_token",
        }),
      ).toEqual({ kind: "bound", plain: "xoxp-demo-U002" });
    } finally {
      after.close();
      await second.close();
    }
  });
});
