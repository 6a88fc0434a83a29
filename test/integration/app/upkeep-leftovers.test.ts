import { QueryCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { findChannel } from "#lib/app/push/channels";
import { runUpkeep } from "#lib/app/push/schedule";
import { stopPush } from "#lib/app/push/upkeep";
import type { SourceRecord } from "#lib/core/records";
import { DynamoStore } from "#lib/store/dynamo-store";
import { DynamoUpkeepSchedule } from "#lib/store/dynamo-upkeep-schedule";
import { tablePerTest } from "../../support/dynalite-tables";
import { KEY, pushUpkeepFixture, T0 } from "../../support/push-upkeep-fixture";

/**
 * What the push upkeep leaves behind in DynamoDB (dynalite, through the real SDK) once
 * the thing it kept is gone.
 */
const DAY = 86_400_000;
const freshTable = tablePerTest("upkeep-leftovers");

async function setup(sources: SourceRecord[], fetchStub: typeof fetch = fetch) {
  const { client, tableName, cleanup } = await freshTable();
  const { ctx, store, schedule, deps, access } = await pushUpkeepFixture({
    provider: "graph",
    store: new DynamoStore(client, tableName),
    schedule: new DynamoUpkeepSchedule(client, tableName),
    tableName,
    fetch: fetchStub,
    user: { since: T0 - DAY, sources },
  });
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
  // record (lib/app/push/upkeep.ts retireBinding) the source's bindings are found through the
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
