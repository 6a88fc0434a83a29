import type { CostSample } from "./cost-sim";
import type { SourceCounts } from "./dynamo-meter";
import type { KmsTally } from "./kms-meter";
import { type Invocation, WARM_MS } from "./lambda-meter";

// Sums the cost bench's worker processes' samples into one count per key.

export const countBy = (values: string[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
};

/** Cold starts: a function's first invocation, and any after it sat idle longer than WARM_MS. */
export function coldStarts(invocations: Invocation[]): Record<string, number> {
  const byFn = new Map<string, number[]>();
  for (const i of invocations) {
    const ats = byFn.get(i.fn);
    if (ats) ats.push(i.at);
    else byFn.set(i.fn, [i.at]);
  }
  const out: Record<string, number> = {};
  for (const [fn, ats] of byFn) {
    ats.sort((a, b) => a - b);
    out[fn] = ats.filter((at, k) => k === 0 || at - (ats[k - 1] as number) > WARM_MS).length;
  }
  return out;
}

/** Index entries written, by index, over every sample. */
export function indexWritesOf(samples: CostSample[]): Record<string, number> {
  const indexWrites: Record<string, number> = {};
  for (const s of samples) {
    for (const [index, k] of Object.entries(s.dynamo.indexWrites)) {
      indexWrites[index] = (indexWrites[index] ?? 0) + k;
    }
  }
  return indexWrites;
}

/** DynamoDB counts by function, command and item kind, over every sample. */
export function dynamoBySourceOf(samples: CostSample[]): Map<string, SourceCounts> {
  const bySource = new Map<string, SourceCounts>();
  for (const s of samples) {
    for (const [source, c] of Object.entries(s.dynamo.bySource)) {
      const row = bySource.get(source) ?? { reads: 0, writes: 0, readUnits: 0, writeUnits: 0 };
      row.reads += c.reads;
      row.writes += c.writes;
      row.readUnits += c.readUnits;
      row.writeUnits += c.writeUnits;
      bySource.set(source, row);
    }
  }
  return bySource;
}

/** KMS requests made and asked for, by function, over every sample. */
export function kmsByFunctionOf(samples: CostSample[]): Record<string, KmsTally> {
  const kmsByFunction: Record<string, KmsTally> = {};
  for (const s of samples) {
    for (const [fn, k] of Object.entries(s.kms.byFunction)) {
      const row = kmsByFunction[fn] ?? {
        encrypt: 0,
        decrypt: 0,
        asked: { encrypt: 0, decrypt: 0 },
      };
      row.encrypt += k.encrypt;
      row.decrypt += k.decrypt;
      row.asked.encrypt += k.asked.encrypt;
      row.asked.decrypt += k.asked.decrypt;
      kmsByFunction[fn] = row;
    }
  }
  return kmsByFunction;
}
