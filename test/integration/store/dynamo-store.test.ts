import { GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { POLL_INTERVAL_MS } from "#lib/core/poll";
import { initialStatusState } from "#lib/core/reconcile/state";
import type { StatusRecord, UserRecord } from "#lib/core/records";
import { DynamoStore } from "#lib/store/dynamo-store";
import { ConflictError } from "#lib/store/errors";
import { pollPhase } from "#lib/store/items/user";
import { cloudFormationTableResource, createTableInput, TTL_ATTRIBUTE } from "#lib/store/table";
import { aStatus, aUser, T0 } from "../../contract/status-store.fixtures";
import { dynaliteForFile } from "../../support/dynalite";

const dynamo = dynaliteForFile();
let store: DynamoStore;
beforeAll(() => {
  store = new DynamoStore(dynamo.client, dynamo.tableName);
});

const user = (id: string, overrides: Partial<UserRecord> = {}): UserRecord =>
  aUser({ team: "T1", user: id }, overrides);

const status = (id: string, next?: number): StatusRecord =>
  aStatus({ team: "T1", user: id }, next !== undefined ? { nextTransitionAt: next } : {});

describe("DynamoStore", () => {
  it("stores a user and reads every field back", async () => {
    // Prepare
    const u = user("U-read", { adminTokenUser: "UADMIN", rules: { showTitles: true } });
    // Act
    const written = await store.putUser(u, undefined);
    const read = await store.getUser(u.key);
    // Assess
    expect(written.version).toBe(1);
    expect(read).toEqual({ ...u, version: 1 });
  });

  it("turns a write on a stale version into a ConflictError and keeps the winner", async () => {
    // Prepare
    const first = await store.putStatus(status("U-race"), undefined);
    await store.putStatus({ ...first, updatedAt: T0 + 1 }, first.version);
    // Act
    const losing = store.putStatus({ ...first, updatedAt: T0 + 2 }, first.version);
    // Assess
    await expect(losing).rejects.toBeInstanceOf(ConflictError);
    expect((await store.getStatus(first.key))?.updatedAt).toBe(T0 + 1);
  });

  it("refuses to create an item twice", async () => {
    // Prepare
    await store.putUser(user("U-twice"), undefined);
    // Act / Assess
    await expect(store.putUser(user("U-twice"), undefined)).rejects.toBeInstanceOf(ConflictError);
  });

  it("finds users due in a window through every shard of the index, and only those", async () => {
    // Prepare
    const ids = Array.from({ length: 20 }, (_, i) => `U-due-${i}`);
    await Promise.all(ids.map((id, i) => store.putStatus(status(id, T0 + i * 10_000), undefined)));
    await store.putStatus(status("U-due-none"), undefined);
    // Act
    const due = await store.dueBetween(T0 + 30_000, T0 + 100_000);
    // Assess
    expect(due.map((d) => d.key.user).sort()).toEqual(
      ["U-due-3", "U-due-4", "U-due-5", "U-due-6", "U-due-7", "U-due-8", "U-due-9"].sort(),
    );
  });

  it("loads a user's profile, status, timelines and out-of-office entries in one query", async () => {
    // Prepare
    const u = await store.putUser(user("U-snap"), undefined);
    await store.putStatus(status("U-snap"), undefined);
    await store.putTimeline(
      { key: u.key, sourceId: "work", blocks: [], etag: '"e1"', version: 0, updatedAt: T0 },
      undefined,
    );
    await store.createOutOfOffice({
      key: u.key,
      id: "o1",
      start: T0,
      end: T0 + 3_600_000,
      text: "Away",
      emoji: ":palm_tree:",
      createdAt: T0,
    });
    // Act
    const snap = await store.loadUser(u.key);
    // Assess
    expect(snap.user?.tz).toBe("Europe/Berlin");
    expect(snap.status?.version).toBe(1);
    expect(snap.timelines.map((t) => [t.sourceId, t.etag])).toEqual([["work", '"e1"']]);
    expect(snap.ooo.map((o) => o.id)).toEqual(["o1"]);
  });

  it("deletes an out-of-office entry once and reports a second delete as nothing", async () => {
    // Prepare
    const key = { team: "T1", user: "U-ooo" };
    await store.createOutOfOffice({
      key,
      id: "o2",
      start: T0,
      end: T0 + 1,
      text: "x",
      emoji: ":x:",
      createdAt: T0,
    });
    // Act
    const first = await store.deleteOutOfOffice(key, "o2");
    const second = await store.deleteOutOfOffice(key, "o2");
    // Assess
    expect(first?.id).toBe("o2");
    expect(second).toBeUndefined();
  });

  it("maps a push channel to its user and source", async () => {
    // Act
    await store.putChannel(
      { channelId: "ch-1", key: { team: "T1", user: "U-ch" }, sourceId: "g", version: 0 },
      undefined,
    );
    // Assess
    expect(await store.getChannel("ch-1")).toEqual({
      channelId: "ch-1",
      key: { team: "T1", user: "U-ch" },
      sourceId: "g",
      version: 1,
    });
    expect(await store.getChannel("ch-unknown")).toBeUndefined();
  });

  it("keeps the hook a channel was bound for", async () => {
    // Act
    await store.putChannel(
      {
        channelId: "ch-kind",
        key: { team: "T1", user: "U-ch" },
        sourceId: "g",
        secretSealed: "sealed",
        kind: "google",
        version: 0,
      },
      undefined,
    );
    const raw = await dynamo.client.send(
      new GetItemCommand({
        TableName: dynamo.tableName,
        Key: { PK: { S: "CHANNEL#ch-kind" }, SK: { S: "CHANNEL" } },
      }),
    );
    // Assess
    expect((await store.getChannel("ch-kind"))?.kind).toBe("google");
    expect(raw.Item?.kind).toEqual({ S: "google" });
  });

  it("reads a channel stored with a kind it does not know as a corrupt item", async () => {
    // Prepare
    await dynamo.client.send(
      new PutItemCommand({
        TableName: dynamo.tableName,
        Item: {
          PK: { S: "CHANNEL#ch-odd" },
          SK: { S: "CHANNEL" },
          type: { S: "channel" },
          channelId: { S: "ch-odd" },
          team: { S: "T1" },
          user: { S: "U-ch" },
          sourceId: { S: "g" },
          kind: { S: "carrier-pigeon" },
          version: { N: "1" },
        },
      }),
    );
    // Act
    const read = store.getChannel("ch-odd");
    // Assess
    await expect(read).rejects.toMatchObject({ code: "corrupt_item", pointer: "/kind" });
  });

  it("lists users by poll phase, whatever their last sync, never paused ones", async () => {
    // Prepare
    const src = { id: "s", url: "https://cal.example/a.ics", kind: "ics" as const };
    await store.putUser(user("U-poll-old", { sources: [{ ...src, syncedAt: T0 }] }), undefined);
    await store.putUser(
      user("U-poll-fresh", { sources: [{ ...src, syncedAt: T0 + POLL_INTERVAL_MS }] }),
      undefined,
    );
    await store.putUser(user("U-poll-paused", { mode: "paused", sources: [src] }), undefined);
    await store.putUser(user("U-poll-none"), undefined);
    const phaseOf = (id: string) => pollPhase({ team: "T1", user: id });
    // Act
    const all = await store.usersToPoll(0, POLL_INTERVAL_MS);
    const justOld = await store.usersToPoll(phaseOf("U-poll-old"), phaseOf("U-poll-old") + 1);
    // Assess
    expect(all.map((u) => u.key.user).sort()).toEqual(["U-poll-fresh", "U-poll-old"]);
    expect(justOld.map((u) => u.key.user)).toEqual(["U-poll-old"]);
  });
});

describe("DynamoStore's indexes project only what their queries read", () => {
  it("gives the poll index a profile's key and sources, never its tokens", async () => {
    // Prepare
    const src = { id: "s", url: "https://cal.example/p.ics", kind: "ics" as const, etag: '"e"' };
    await store.putUser(user("U-proj", { sources: [src] }), undefined);
    const phase = pollPhase({ team: "T1", user: "U-proj" });
    // Act
    const found = await store.usersToPoll(phase, phase + 1);
    // Assess
    expect(found).toEqual([{ key: { team: "T1", user: "U-proj" }, sources: [src] }]);
    const poll = createTableInput("x").GlobalSecondaryIndexes?.find((i) => i.IndexName === "poll");
    expect(poll?.Projection).toEqual({
      ProjectionType: "INCLUDE",
      NonKeyAttributes: ["team", "user", "sources"],
    });
  });

  it("finds the sources of a profile written before they had their own attribute", async () => {
    // Prepare: the item as the previous release wrote it (sources inside `data`)
    const key = { team: "T1", user: "U-old-item" };
    const src = { id: "s", url: "https://cal.example/o.ics", kind: "ics" };
    const phase = pollPhase(key);
    await dynamo.client.send(
      new PutItemCommand({
        TableName: dynamo.tableName,
        Item: {
          PK: { S: "USER#T1#U-old-item" },
          SK: { S: "PROFILE" },
          type: { S: "user" },
          team: { S: "T1" },
          user: { S: "U-old-item" },
          version: { N: "1" },
          updatedAt: { N: String(T0) },
          data: {
            S: JSON.stringify({ tz: "UTC", tokenSealed: "t", sources: [src], mode: "auto" }),
          },
          GSI2PK: { S: "POLL#0" },
          GSI2SK: { N: String(phase) },
        },
      }),
    );
    // Act
    const found = await store.usersToPoll(phase, phase + 1);
    const read = await store.getUser(key);
    // Assess
    expect(found.filter((u) => u.key.user === "U-old-item")).toEqual([{ key, sources: [src] }]);
    expect(read?.sources).toEqual([src]);
  });

  it("answers the due statuses from the index alone, reading no item", async () => {
    // Prepare: a state the index does not carry, and a spy on the commands the store sends
    const state = { ...initialStatusState(), recentEventIds: ["Ev-due"] };
    await store.putStatus({ ...status("U-due-index", T0 + 7_000), state }, undefined);
    const sent: string[] = [];
    const name = "countDueCommands";
    dynamo.client.middlewareStack.add(
      (next, context) => (args) => {
        sent.push(String(context.commandName));
        return next(args);
      },
      { step: "initialize", name },
    );
    // Act
    const due = await store.dueBetween(T0 + 7_000, T0 + 7_001).finally(() => {
      dynamo.client.middlewareStack.remove(name);
    });
    // Assess: one query per shard, and the entry as the tick needs it
    expect(due).toEqual([
      { key: { team: "T1", user: "U-due-index" }, nextTransitionAt: T0 + 7_000, nextIsOoo: false },
    ]);
    expect(new Set(sent)).toEqual(new Set(["QueryCommand"]));
  });
});

describe("DynamoStore item lifetimes", () => {
  it("deletes a source's timeline and treats deleting a missing one as nothing", async () => {
    // Prepare
    const key = { team: "T1", user: "U-del" };
    await store.putUser(user("U-del"), undefined);
    await store.putTimeline(
      { key, sourceId: "old", blocks: [], version: 0, updatedAt: T0 },
      undefined,
    );
    // Act
    await store.deleteTimeline(key, "old");
    await store.deleteTimeline(key, "never");
    // Assess
    expect((await store.loadUser(key)).timelines).toEqual([]);
  });

  it("gives an out-of-office entry a TTL 30 days after its end", async () => {
    // Prepare
    const key = { team: "T1", user: "U-ttl" };
    const end = T0 + 3_600_000;
    // Act
    await store.createOutOfOffice({
      key,
      id: "ttl-1",
      start: T0,
      end,
      text: "Away",
      emoji: ":palm_tree:",
      createdAt: T0,
    });
    // Assess
    const out = await dynamo.client.send(
      new GetItemCommand({
        TableName: dynamo.tableName,
        Key: { PK: { S: "USER#T1#U-ttl" }, SK: { S: "OOO#ttl-1" } },
      }),
    );
    expect(out.Item?.[TTL_ATTRIBUTE]).toEqual({ N: String((end + 30 * 86_400_000) / 1000) });
  });

  it("carries the version it expected in a conflict", async () => {
    // Prepare
    await store.putStatus(status("U-cf"), undefined);
    // Act
    const error = await store.putStatus(status("U-cf"), 7).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).expectedVersion).toBe(7);
    expect((error as ConflictError).sk).toBe("STATUS");
  });
});

describe("table definition", () => {
  it("gives CloudFormation the same keys, indexes and billing as the local table", () => {
    // Prepare
    const local = createTableInput("t");
    // Act
    const cfn = cloudFormationTableResource("t");
    // Assess
    expect(cfn.Type).toBe("AWS::DynamoDB::Table");
    expect(cfn.Properties).toMatchObject({
      TableName: "t",
      AttributeDefinitions: local.AttributeDefinitions,
      KeySchema: local.KeySchema,
      GlobalSecondaryIndexes: local.GlobalSecondaryIndexes,
      BillingMode: local.BillingMode,
      TimeToLiveSpecification: { AttributeName: "expiresAt", Enabled: true },
    });
  });
});
