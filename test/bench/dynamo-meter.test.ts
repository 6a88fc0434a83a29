import { describe, expect, it } from "vitest";
import { indexWrites, readFloor, readUnitsOf } from "#bench/support/dynamo-meter";

const INDEXES = [{ name: "poll", keys: ["GSI2PK", "GSI2SK"] }];
const base = { PK: { S: "USER#T#U" }, SK: { S: "PROFILE" }, data: { S: "x" } };
const polled = (sk: string, data = "x") => ({
  ...base,
  data: { S: data },
  GSI2PK: { S: "POLL#3" },
  GSI2SK: { N: sk },
});

describe("the cost bench's index write pricing (AWS's GSI rules, every attribute projected)", () => {
  it("prices a put into the index, a delete from it, and a key change as both", () => {
    expect(indexWrites(undefined, polled("5"), INDEXES)).toEqual([{ index: "poll", units: 1 }]);
    expect(indexWrites(polled("5"), base, INDEXES)).toEqual([{ index: "poll", units: 1 }]);
    expect(indexWrites(polled("5"), polled("6"), INDEXES)).toEqual([
      { index: "poll", units: 1 },
      { index: "poll", units: 1 },
    ]);
  });

  it("prices a rewrite in place when any attribute changed, nothing when none did or it is absent", () => {
    expect(indexWrites(polled("5"), polled("5", "y"), INDEXES)).toEqual([
      { index: "poll", units: 1 },
    ]);
    expect(indexWrites(polled("5"), polled("5"), INDEXES)).toEqual([]);
    expect(indexWrites(base, { ...base, data: { S: "y" } }, INDEXES)).toEqual([]);
  });

  it("prices each index write by the projected item's size in 1 KB units", () => {
    const big = polled("5", "z".repeat(2500));
    expect(indexWrites(undefined, big, INDEXES)).toEqual([{ index: "poll", units: 3 }]);
    expect(indexWrites(big, polled("6"), INDEXES)).toEqual([
      { index: "poll", units: 3 },
      { index: "poll", units: 1 },
    ]);
  });
});

describe("the cost bench's index write pricing, for an index that projects some attributes", () => {
  // INCLUDE ["team"]: entries hold the table's keys, the index's keys and `team` only.
  const INCLUDE = [
    {
      name: "poll",
      keys: ["GSI2PK", "GSI2SK"],
      projected: ["PK", "SK", "GSI2PK", "GSI2SK", "team"],
    },
  ];
  const withTeam = (sk: string, data: string, team = "T") => ({
    ...polled(sk, data),
    team: { S: team },
  });

  it("writes nothing when only attributes it does not project changed", () => {
    expect(indexWrites(withTeam("5", "x"), withTeam("5", "y"), INCLUDE)).toEqual([]);
  });

  it("rewrites the entry in place when a projected attribute changed, and moves it on a key change", () => {
    expect(indexWrites(withTeam("5", "x"), withTeam("5", "x", "T2"), INCLUDE)).toEqual([
      { index: "poll", units: 1 },
    ]);
    expect(indexWrites(withTeam("5", "x"), withTeam("6", "y"), INCLUDE)).toEqual([
      { index: "poll", units: 1 },
      { index: "poll", units: 1 },
    ]);
  });

  it("prices the entry by its projected attributes, not the item's size", () => {
    expect(indexWrites(undefined, withTeam("5", "z".repeat(2500)), INCLUDE)).toEqual([
      { index: "poll", units: 1 },
    ]);
  });
});

describe("the cost bench's floor for a read that finds nothing (AWS bills it all the same)", () => {
  it("bills a single read one unit when strongly consistent, half of one when not", () => {
    expect(readFloor("GetItemCommand", { ConsistentRead: true })).toBe(1);
    expect(readFloor("QueryCommand", { ConsistentRead: true })).toBe(1);
    // An index query: index reads are always eventually consistent.
    expect(readFloor("QueryCommand", { IndexName: "due" })).toBe(0.5);
    expect(readFloor("ScanCommand", {})).toBe(0.5);
  });

  it("adds no floor to a batch read (billed per item it reads) or to a write", () => {
    expect(readFloor("BatchGetItemCommand", { RequestItems: {} })).toBe(0);
    expect(readFloor("PutItemCommand", {})).toBe(0);
  });
});

describe("the cost bench's price of an index query, as a deployment's run shares it", () => {
  // An entry of 1,024 bytes: names and values, by DynamoDB's item-size rules.
  const entry = { PK: { S: "x".repeat(1_022) } };

  it("charges the floor plus each entry's share of half a unit per 4 KB", () => {
    const query = { IndexName: "poll" };
    expect(readUnitsOf("QueryCommand", query, { Items: [] }, 0)).toBe(0.5);
    expect(readUnitsOf("QueryCommand", query, { Items: [entry] }, 0.5)).toBe(0.5 + 0.125);
    expect(readUnitsOf("QueryCommand", query, { Items: [entry, entry] }, 0.5)).toBe(0.5 + 0.25);
  });

  it("charges a table read what DynamoDB reports, never less than the floor", () => {
    const get = { ConsistentRead: true };
    expect(readUnitsOf("GetItemCommand", get, {}, 0)).toBe(1);
    expect(readUnitsOf("QueryCommand", get, { Items: [entry] }, 2)).toBe(2);
  });
});
