import { randomBytes } from "node:crypto";
import { type AttributeValue, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { RECENT_ATTEMPTS, RECENT_EVENT_IDS, RECENT_WRITES } from "#lib/core/reconcile/state";
import type { StatusRecord, StatusState, TimelineRecord } from "#lib/core/records";
import type { Block } from "#lib/core/types";
import { DynamoStore } from "#lib/store/dynamo-store";
import type { LocalDynamo } from "../../support/dynalite";
import { dynaliteForFile } from "../../support/dynalite-tables";

/**
 * What the store's items cost in DynamoDB units. The status state and a timeline's blocks are
 * stored packed (deflated JSON in a binary attribute), so the commonest writes cost one write
 * unit; items a previous release wrote with them as JSON strings are still read, and packed at
 * their next write. The profile and status are read alone in one unit, whatever else the user
 * has.
 */

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);

let dynamo: LocalDynamo;
let store: DynamoStore;

dynaliteForFile((started) => {
  dynamo = started;
  store = new DynamoStore(started.client, started.tableName);
});

type Item = Record<string, AttributeValue>;

const rawItem = async (pk: string, sk: string): Promise<Item | undefined> =>
  (
    await dynamo.client.send(
      new GetItemCommand({
        TableName: dynamo.tableName,
        Key: { PK: { S: pk }, SK: { S: sk } },
        ConsistentRead: true,
      }),
    )
  ).Item;

const putRaw = (item: Item) =>
  dynamo.client.send(new PutItemCommand({ TableName: dynamo.tableName, Item: item }));

/**
 * An item's size as DynamoDB bills it: each attribute's name in UTF-8 bytes plus its value
 * (a string's UTF-8 bytes, a binary's bytes, a number's digits two to a byte plus one).
 */
function billedBytes(item: Item): number {
  let total = 0;
  for (const [name, value] of Object.entries(item)) {
    total += Buffer.byteLength(name);
    if (value.S !== undefined) total += Buffer.byteLength(value.S);
    else if (value.B !== undefined) total += value.B.byteLength;
    else if (value.N !== undefined) total += Math.ceil(value.N.length / 2) + 1;
    else total += 1;
  }
  return total;
}

const statusValue = (i: number) => ({
  text: `Weekly sync with the platform team, part ${i}`,
  emoji: ":calendar:",
  expiration: Math.floor(T0 / 1000) + i * 1_800,
});

/** A state as full as it gets: every bounded list at its bound, every optional part set. */
const fullState = (): StatusState => ({
  actual: { status: statusValue(1), observedAt: T0, source: "ours" },
  lastWritten: statusValue(1),
  recentWrites: Array.from({ length: RECENT_WRITES }, (_, i) => ({
    status: statusValue(i),
    at: T0 + i * 3_600_000,
    until: T0 + i * 3_600_000 + 250,
  })),
  attempts: Array.from({ length: RECENT_ATTEMPTS }, (_, i) => ({
    status: statusValue(i + 20),
    sentAt: T0 + i * 60_000,
  })),
  override: { status: { text: "Walking the dog", emoji: ":dog:", expiration: 0 }, since: T0 },
  pending: { status: statusValue(30), claimedAt: T0 + 5_000, recheck: true },
  recentEventIds: Array.from(
    { length: RECENT_EVENT_IDS },
    (_, i) => `Ev0${(7_919 * i + 104_729).toString(36).toUpperCase()}QZ${i}`,
  ),
  rejected: { status: statusValue(40), code: "too_long", at: T0 },
  retry: { attempt: 2, at: T0 + 120_000, code: "ratelimited" },
});

/** A busy week: five distinct meetings a weekday, 25 blocks, each title its own. */
const busyWeek = (): Block[] =>
  Array.from({ length: 25 }, (_, i) => ({
    start: T0 + i * 5_400_000,
    end: T0 + i * 5_400_000 + 1_800_000,
    text: `Meeting ${i}: ${["roadmap review", "1:1 with Dana", "customer call", "hiring loop", "standup"][i % 5]}`,
    emoji: ":calendar:",
    kind: "meeting",
    expiration: Math.floor((T0 + i * 5_400_000 + 1_800_000) / 1000),
  }));

describe("packed status and timeline items", () => {
  it("keeps the fullest status item under one write unit (1 KB), its state packed", async () => {
    // Prepare
    const key = { team: "T1", user: "U-full" };
    const rec: StatusRecord = {
      key,
      state: fullState(),
      version: 0,
      updatedAt: T0,
      nextTransitionAt: T0 + 60_000,
      nextIsOoo: false,
      enqueuedFor: T0 + 60_000,
    };
    // Act
    const saved = await store.putStatus(rec, undefined);
    const item = await rawItem("USER#T1#U-full", "STATUS");
    // Assess
    expect(Buffer.byteLength(JSON.stringify(rec.state))).toBeGreaterThan(1_024);
    expect(billedBytes(item ?? {})).toBeLessThanOrEqual(1_024);
    expect(await store.getStatus(key)).toEqual(saved);
  });

  it("keeps a busy week's timeline item under one write unit, its blocks packed", async () => {
    // Prepare
    const key = { team: "T1", user: "U-week" };
    const timeline: TimelineRecord = {
      key,
      sourceId: "work",
      blocks: busyWeek(),
      etag: '"33a64df551425fcc55e4d42a148795d9f25f89d4"',
      hash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
      version: 0,
      updatedAt: T0,
    };
    // Act
    const saved = await store.putTimeline(timeline, undefined);
    const item = await rawItem("USER#T1#U-week", "TIMELINE#work");
    // Assess
    expect(Buffer.byteLength(JSON.stringify(timeline.blocks))).toBeGreaterThan(3_072);
    expect(billedBytes(item ?? {})).toBeLessThanOrEqual(1_024);
    expect((await store.loadUser(key)).timelines).toEqual([saved]);
  });

  it("reads a status and a timeline written with JSON strings, and packs them at their next write", async () => {
    // Prepare: the items as the previous release wrote them
    const key = { team: "T1", user: "U-plain" };
    const state = fullState();
    const blocks = busyWeek();
    await putRaw({
      PK: { S: "USER#T1#U-plain" },
      SK: { S: "STATUS" },
      type: { S: "status" },
      team: { S: "T1" },
      user: { S: "U-plain" },
      version: { N: "3" },
      updatedAt: { N: String(T0) },
      state: { S: JSON.stringify(state) },
    });
    await putRaw({
      PK: { S: "USER#T1#U-plain" },
      SK: { S: "TIMELINE#work" },
      type: { S: "timeline" },
      team: { S: "T1" },
      user: { S: "U-plain" },
      sourceId: { S: "work" },
      version: { N: "2" },
      updatedAt: { N: String(T0) },
      blocks: { S: JSON.stringify(blocks) },
      etag: { S: '"e1"' },
    });
    // Act
    const oldStatus = await store.getStatus(key);
    const oldSnap = await store.loadUser(key);
    const rewritten = await store.putStatus(
      { ...(oldStatus as StatusRecord), updatedAt: T0 + 1 },
      3,
    );
    const [oldTimeline] = oldSnap.timelines;
    if (oldTimeline === undefined) throw new Error("the plain timeline was not read");
    const retimed = await store.putTimeline({ ...oldTimeline, updatedAt: T0 + 1 }, 2);
    const statusItem = await rawItem("USER#T1#U-plain", "STATUS");
    const timelineItem = await rawItem("USER#T1#U-plain", "TIMELINE#work");
    const newSnap = await store.loadUser(key);
    // Assess: read as written, then stored packed only
    expect(oldStatus).toEqual({ key, state, version: 3, updatedAt: T0 });
    expect(oldSnap.status).toEqual(oldStatus);
    expect(oldSnap.timelines).toEqual([
      { key, sourceId: "work", blocks, etag: '"e1"', version: 2, updatedAt: T0 },
    ]);
    expect(statusItem?.state).toBeUndefined();
    expect(statusItem?.stateZ?.B).toBeInstanceOf(Uint8Array);
    expect(timelineItem?.blocks).toBeUndefined();
    expect(timelineItem?.blocksZ?.B).toBeInstanceOf(Uint8Array);
    expect(newSnap.status).toEqual({ ...rewritten, state });
    expect(newSnap.timelines).toEqual([{ ...retimed, blocks }]);
  });
});

describe("the read of a profile and status alone", () => {
  /** Read units of each command `work` sends, as DynamoDB reports them. */
  async function readUnitsOf(work: () => Promise<unknown>): Promise<number[]> {
    const units: number[] = [];
    const name = "recordReadUnits";
    dynamo.client.middlewareStack.add(
      (next) => async (args) => {
        (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = "TOTAL";
        const result = await next(args);
        const used = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } })
          .ConsumedCapacity;
        units.push(used?.CapacityUnits ?? 0);
        return result;
      },
      { step: "initialize", name },
    );
    try {
      await work();
    } finally {
      dynamo.client.middlewareStack.remove(name);
    }
    return units;
  }

  it("costs one read unit however many calendars the user has", async () => {
    // Prepare: four calendars whose blocks do not compress (random titles), over 4 KB in all
    const key = { team: "T1", user: "U-many" };
    await store.putUser(
      {
        key,
        tz: "UTC",
        tokenSealed: "sealed",
        emails: [],
        sources: [],
        rules: {},
        mode: "auto",
        version: 0,
        updatedAt: T0,
      },
      undefined,
    );
    await store.putStatus({ key, state: fullState(), version: 0, updatedAt: T0 }, undefined);
    for (const sourceId of ["a", "b", "c", "d"]) {
      const blocks = busyWeek().map((b) => ({ ...b, text: randomBytes(24).toString("base64") }));
      await store.putTimeline({ key, sourceId, blocks, version: 0, updatedAt: T0 }, undefined);
    }
    // Act
    const whole = await readUnitsOf(() => store.loadUser(key));
    const alone = await readUnitsOf(() => store.getUserAndStatus(key));
    // Assess: the partition is over 4 KB; its profile and status are one strongly consistent unit
    expect(whole.reduce((a, b) => a + b, 0)).toBeGreaterThan(1);
    expect(alone).toEqual([1]);
  });
});
