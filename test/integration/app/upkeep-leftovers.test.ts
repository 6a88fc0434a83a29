import { QueryCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { loadConfig } from "#lib/app/config";
import { createConnectAccess } from "#lib/app/connect-access";
import type { SyncMessage } from "#lib/app/contracts";
import { LocalTokenVault } from "#lib/app/local-token-vault";
import { type PushScheduleDeps, runUpkeep } from "#lib/app/push-schedule";
import { stopPush } from "#lib/app/push-upkeep";
import { findChannel } from "#lib/app/users";
import { ManualClock } from "#lib/core/clock";
import type { Queue } from "#lib/core/ports";
import type { SourceRecord } from "#lib/core/records";
import { DynamoStore } from "#lib/store/dynamo-store";
import { DynamoUpkeepSchedule } from "#lib/store/dynamo-upkeep-schedule";
import { tablePerTest } from "../../support/dynalite-tables";
import { plainUser, statuslessContext } from "./statusless-context";

/**
 * What the push upkeep leaves behind in DynamoDB (dynalite, through the real SDK) once
 * the thing it kept is gone.
 */
const T0 = Date.UTC(2026, 3, 1, 9);
const DAY = 86_400_000;
const KEY = { team: "T0DEMO", user: "U001" };
const freshTable = tablePerTest("upkeep-leftovers");

async function setup(sources: SourceRecord[], fetchStub: typeof fetch = fetch) {
  const { client, tableName, cleanup } = await freshTable();
  const clock = new ManualClock(T0);
  const store = new DynamoStore(client, tableName);
  const ctx = statuslessContext({ store, clock, tokens: new LocalTokenVault(Buffer.alloc(32, 3)) });
  await store.putUser(plainUser(KEY, T0 - DAY, sources), undefined);
  const config = loadConfig({
    TABLE_NAME: tableName,
    SERVICE_BASE_URL: "https://svc.example/api",
    SIGNING_SECRET: "s",
    TOKEN_KEY: "k",
    PUBLIC_BASE_URL: "https://statuspilot.example",
    MICROSOFT_CLIENT_ID: "client",
    MICROSOFT_CLIENT_SECRET: "secret",
    MICROSOFT_GRAPH_BASE_URL: "https://graph.example/v1.0",
  });
  const access = createConnectAccess({
    ctx,
    config,
    fetch: fetchStub,
    readParameter: async () => "",
  });
  const schedule = new DynamoUpkeepSchedule(client, tableName);
  const syncQueue: Queue<SyncMessage> = { send: async () => {} };
  const deps: PushScheduleDeps = {
    upkeep: {
      ctx,
      config,
      access,
      signingSecret: async () => "s",
      newChannelId: () => "c",
      schedule,
    },
    schedule,
    syncQueue,
  };
  /** Every item left in the user's own partition. */
  const partition = async () =>
    (
      await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: "PK = :pk",
          ExpressionAttributeValues: { ":pk": { S: `USER#${KEY.team}#${KEY.user}` } },
        }),
      )
    ).Items ?? [];
  return { ctx, store, schedule, deps, access, partition, cleanup };
}

describe("upkeep leftovers", () => {
  // Was a defect (lib/store/dynamo-upkeep-schedule.ts claim): a claim was an upsert, so an
  // upkeep message that came after the user's data was deleted (a repair the poll queued just
  // before the disconnect, a lifecycle notification, a tick that read the index before the
  // deletion showed) wrote a new entry into the deleted user's partition and, finding no user,
  // parked it there: an item with no TTL that nothing deletes (the sync worker may not delete).
  // Fixed: a claim and a park change only an existing entry; without one the upkeep runs
  // unheld and writes its entry (`set`) only once it has found the source connected.
  it("a late upkeep message leaves nothing in a deleted user's partition", async () => {
    const graph: SourceRecord = {
      id: "graph-1",
      kind: "graph",
      url: "https://graph.example/v1.0/me/calendar",
      refreshTokenSealed: "sealed",
    };
    const { store, deps, partition, cleanup } = await setup([graph]);
    try {
      // The person disconnects: the web deletes every item of theirs.
      await store.deleteUserData(KEY);
      expect(await partition()).toEqual([]);
      // A repair the poll queued just before is handled after.
      const run = await runUpkeep(deps, KEY, "graph-1", {
        upkeep: { repair: true },
        readNewChannel: true,
      });
      expect(run).toEqual({ kind: "gone" });
      expect((await partition()).map((i) => i.SK?.S)).toEqual([]);
    } finally {
      await cleanup();
    }
  });

  // A Graph subscription made by the previous release is recorded with Graph's subscription id
  // as `channelId` and no `bindingId`, while its binding was stored under our own channel id (its
  // clientState). bindingOf() answers the subscription id, which names no binding, so for such a
  // record (lib/app/push-upkeep.ts retireBinding) the source's bindings are found through the
  // user's CHANNEL# pointers and retired: stopping it, or replacing it (a recreate).
  it("stopping a Graph subscription made by the previous release retires its binding", async () => {
    const graphFetch = (async () => new Response(null, { status: 204 })) as typeof fetch;
    const legacy: SourceRecord = {
      id: "graph-1",
      kind: "graph",
      url: "https://graph.example/v1.0/me/calendar",
      refreshTokenSealed: "sealed",
      // As the previous release wrote it: Graph's id, no bindingId.
      push: { channelId: "graph-sub-1", createdAt: T0 - DAY, expiresAt: T0 + DAY },
    };
    const { ctx, deps, access, cleanup } = await setup([legacy], graphFetch);
    try {
      access.remember(KEY, "graph-1", {
        accessToken: "access-token",
        expiresInS: 3600,
        refreshTokenSealed: "sealed",
      });
      // Its binding, under our own id (the clientState's), as the previous release bound it.
      await ctx.store.putChannel(
        { channelId: "ours-1", key: KEY, sourceId: "graph-1", kind: "graph", version: 0 },
        undefined,
      );
      // The person removes the calendar: the web stops its push first.
      await stopPush(deps.upkeep, KEY, legacy);
      expect(await findChannel(ctx, "ours-1", { openSecret: false })).toBeUndefined();
    } finally {
      await cleanup();
    }
  });
});
