import { describe, expect, it } from "vitest";
import { indexWrites } from "../../bench/support/dynamo-meter";

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
