import { AsyncLocalStorage } from "node:async_hooks";
import { type AttributeValue, DynamoDBClient, GetItemCommand } from "@aws-sdk/client-dynamodb";
import { tableDefinition } from "#lib/store/table";

/** Commands that read; everything else that reaches the table is a write. */
const READS = new Set(["GetItemCommand", "QueryCommand", "ScanCommand", "BatchGetItemCommand"]);
/** Commands that accept ReturnConsumedCapacity. */
const METERED = new Set([
  "GetItemCommand",
  "QueryCommand",
  "ScanCommand",
  "BatchGetItemCommand",
  "PutItemCommand",
  "UpdateItemCommand",
  "DeleteItemCommand",
  "BatchWriteItemCommand",
  "TransactWriteItemsCommand",
  "TransactGetItemsCommand",
]);
/** Single-item writes whose index writes the meter prices (the only writes the store makes). */
const ITEM_WRITES = new Set(["PutItemCommand", "UpdateItemCommand", "DeleteItemCommand"]);

type Item = Record<string, AttributeValue>;

/** The table's key and its indexes' keys, from the one table definition. */
const TABLE_KEY = (tableDefinition.KeySchema ?? []).map((k) => k.AttributeName as string);
/**
 * Each index: its key, and what its entries hold (`projected`: every attribute for ALL, else the
 * table's and the index's keys plus INCLUDE's NonKeyAttributes).
 */
const INDEXES: IndexModel[] = (tableDefinition.GlobalSecondaryIndexes ?? []).map((index) => {
  const keys = (index.KeySchema ?? []).map((k) => k.AttributeName as string);
  const projection = index.Projection ?? {};
  return {
    name: index.IndexName as string,
    keys,
    ...(projection.ProjectionType === "ALL"
      ? {}
      : {
          projected: [...TABLE_KEY, ...keys, ...(projection.NonKeyAttributes ?? [])],
        }),
  };
});

/** An index as the meter prices it; `projected` undefined means every attribute (ALL). */
export interface IndexModel {
  name: string;
  keys: string[];
  projected?: string[];
}

/** The part of `item` an index entry holds. */
const projectedPart = (item: Item, projected: string[] | undefined): Item =>
  projected === undefined
    ? item
    : Object.fromEntries(
        projected.flatMap((k) => (item[k] === undefined ? [] : [[k, item[k] as AttributeValue]])),
      );

export interface DynamoCounts {
  reads: number;
  writes: number;
  /** Read/write request units: what DynamoDB reports for the table, plus the index writes. */
  readUnits: number;
  writeUnits: number;
  /**
   * Write units of global secondary indexes (dynalite reports the base table's only), priced by
   * AWS's rules: a put or delete of an index entry is a write, a change of its key both.
   */
  indexWriteUnits: number;
  /** Index entries written (put, update or delete), by index. */
  indexWrites: Record<string, number>;
  /** Conditional writes DynamoDB refused (lost races); they are billed as writes too. */
  conditionalFailures: number;
  byCommand: Record<string, number>;
  /**
   * Reads, writes and their units by what made them: the function whose invocation ran the
   * command (`meteredAs`), then the table partition's kind (`USER/PROFILE`, `IDEMPOTENCY`, ...),
   * so the cost table can say where the units go.
   */
  bySource: Record<string, SourceCounts>;
}

export interface SourceCounts {
  reads: number;
  writes: number;
  readUnits: number;
  writeUnits: number;
}

/** Counts before anything was counted. */
export const emptyDynamoCounts = (): DynamoCounts => ({
  reads: 0,
  writes: 0,
  readUnits: 0,
  writeUnits: 0,
  indexWriteUnits: 0,
  indexWrites: {},
  conditionalFailures: 0,
  byCommand: {},
  bySource: {},
});

/** The function whose invocation is running (AsyncLocalStorage, so concurrency keeps it). */
const scope = new AsyncLocalStorage<string>();

/** Runs `work` with its DynamoDB commands counted under `fn` in `bySource`. */
export const meteredAs = <T>(fn: string, work: () => T): T => scope.run(fn, work);

/** The function whose invocation is running, if any (the KMS meter's too). */
export const meteredFunction = (): string | undefined => scope.getStore();

/** What kind of item a key names: its partition's prefix and, in a user's partition, the item. */
function itemKind(input: Record<string, unknown>): string {
  if (typeof input.IndexName === "string") return `index ${input.IndexName}`;
  const key = (input.Key ?? input.Item ?? input.ExpressionAttributeValues) as Item | undefined;
  const pk = key?.PK?.S ?? key?.[":pk"]?.S;
  if (pk === undefined) return "?";
  const prefix = pk.split("#")[0] ?? "?";
  const sk = key?.SK?.S;
  if (sk === undefined) return `${prefix} partition`;
  return prefix === "USER" ? `USER ${sk.split("#")[0]}` : prefix;
}

function countSource(label: string, field: keyof SourceCounts, k: number): void {
  const row = counts.bySource[label] ?? { reads: 0, writes: 0, readUnits: 0, writeUnits: 0 };
  row[field] += k;
  counts.bySource[label] = row;
}

let counts = emptyDynamoCounts();
let installed = false;
const metered = new WeakSet<DynamoDBClient>();
/** Inputs of the meter's own look-ups, which are neither counted nor priced. */
const probes = new WeakSet<object>();
/** Whether writes are looked up to price their index writes (the cost bench only). */
let pricingIndexes = false;
/** Real time spent in those look-ups since the process started (never reset). */
let lookUpMs = 0;

/**
 * Prices index writes from now on: each write's item is read before and after it (uncounted
 * look-ups that take real time, so benchmarks of latency leave this off).
 */
export function priceIndexWrites(on: boolean): void {
  pricingIndexes = on;
}

/** Real milliseconds spent looking items up for index pricing: handler timers subtract them. */
export const meterLookUpMs = (): number => lookUpMs;

interface CapacityLike {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

const unitsOf = (capacity: unknown): number => {
  const list: unknown[] = Array.isArray(capacity) ? capacity : capacity ? [capacity] : [];
  let total = 0;
  for (const c of list) {
    const cap = c as CapacityLike;
    total += cap.CapacityUnits ?? (cap.ReadCapacityUnits ?? 0) + (cap.WriteCapacityUnits ?? 0);
  }
  return total;
};

/** Single reads that find nothing: dynalite reports 0 units for them. */
const SINGLE_READS = new Set(["GetItemCommand", "QueryCommand", "ScanCommand"]);

/**
 * The least a single read costs in AWS: a read of an item that does not exist, or a query or
 * scan that finds nothing, is still billed one 4 KB read (half of it when eventually consistent,
 * as every index read is).
 */
export const readFloor = (command: string, input: Record<string, unknown>): number =>
  SINGLE_READS.has(command) ? (input.ConsistentRead === true ? 1 : 0.5) : 0;

/**
 * The read units a read is priced at. An index query (the tick's and the poll's) is priced as a
 * deployment's run of it costs each entry it finds: the query's floor, which the deployment
 * model charges once per run, plus each entry's share of the 4 KB units (a simulated run finds a
 * few users where a deployment's finds hundreds, so rounding each simulated query up would charge
 * every user a whole unit). Any other read: what DynamoDB reports, at least the floor.
 */
export function readUnitsOf(
  command: string,
  input: Record<string, unknown>,
  output: unknown,
  reported: number,
): number {
  const floor = readFloor(command, input);
  if (command !== "QueryCommand" || typeof input.IndexName !== "string") {
    return Math.max(reported, floor);
  }
  const items = (output as { Items?: Item[] }).Items ?? [];
  const bytes = items.reduce((total, item) => total + itemBytes(item), 0);
  // Index reads are eventually consistent: half a unit per 4 KB.
  return floor + (0.5 * bytes) / 4096;
}

/** An attribute value's size by DynamoDB's item-size rules (numbers approximated). */
function valueBytes(v: AttributeValue): number {
  if (v.S !== undefined) return Buffer.byteLength(v.S);
  if (v.N !== undefined) return Math.ceil(v.N.replace(/[-.]/g, "").length / 2) + 1;
  if (v.B !== undefined) return v.B.byteLength;
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.SS !== undefined) return v.SS.reduce((n, x) => n + Buffer.byteLength(x), 0);
  if (v.NS !== undefined) return v.NS.reduce((n, x) => n + Math.ceil(x.length / 2) + 1, 0);
  if (v.L !== undefined) return 3 + v.L.reduce((n, x) => n + 1 + valueBytes(x), 0);
  if (v.M !== undefined) return 3 + itemBytes(v.M);
  return 0;
}

/** An item's size: attribute names plus values, in bytes. */
export function itemBytes(item: Item): number {
  let total = 0;
  for (const [name, value] of Object.entries(item))
    total += Buffer.byteLength(name) + valueBytes(value);
  return total;
}

const writeUnitsFor = (item: Item) => Math.max(1, Math.ceil(itemBytes(item) / 1024));
const inIndex = (item: Item | undefined, keys: string[]) =>
  item !== undefined && keys.every((k) => item[k] !== undefined);
const same = (a: AttributeValue | undefined, b: AttributeValue | undefined) =>
  JSON.stringify(a) === JSON.stringify(b);
const sameItem = (a: Item, b: Item) => {
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].every((k) => same(a[k], b[k]));
};

/**
 * The index writes one item write causes, per AWS's rules for global secondary indexes: an entry
 * appears (put), disappears (delete), moves to a new key (delete + put) or is rewritten in place
 * when an attribute it projects changed (one write; a change to attributes it does not project
 * writes nothing to it). Each write costs the entry's size (its projected attributes) in 1 KB
 * units: the old entry's for a delete, the new one's else.
 */
export function indexWrites(
  before: Item | undefined,
  after: Item | undefined,
  indexes: ReadonlyArray<IndexModel> = INDEXES,
): Array<{ index: string; units: number }> {
  const out: Array<{ index: string; units: number }> = [];
  for (const { name, keys, projected } of indexes) {
    const was = inIndex(before, keys) ? projectedPart(before as Item, projected) : undefined;
    const is = inIndex(after, keys) ? projectedPart(after as Item, projected) : undefined;
    if (was && is) {
      if (!keys.every((k) => same(was[k], is[k]))) {
        out.push(
          { index: name, units: writeUnitsFor(was) },
          { index: name, units: writeUnitsFor(is) },
        );
      } else if (!sameItem(was, is)) out.push({ index: name, units: writeUnitsFor(is) });
    } else if (was) out.push({ index: name, units: writeUnitsFor(was) });
    else if (is) out.push({ index: name, units: writeUnitsFor(is) });
  }
  return out;
}

/** Counts one command and the units it consumed; the middleware body. */
function meter(client: DynamoDBClient): void {
  /** The item under `key` as it is now (strongly consistent), outside the counts. */
  const lookUp = async (tableName: unknown, key: Item): Promise<Item | undefined> => {
    const input = { TableName: String(tableName), Key: key, ConsistentRead: true };
    probes.add(input);
    const t0 = performance.now();
    try {
      return (await client.send(new GetItemCommand(input))).Item;
    } finally {
      lookUpMs += performance.now() - t0;
    }
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      if (probes.has(input)) return next(args);
      const command = String(context.commandName ?? "unknown");
      if (METERED.has(command)) input.ReturnConsumedCapacity = "TOTAL";
      const isRead = READS.has(command);
      counts.byCommand[command] = (counts.byCommand[command] ?? 0) + 1;
      const label = `${scope.getStore() ?? "setup"}: ${command.replace(/Command$/, "")} ${itemKind(input)}`;
      if (command !== "CreateTableCommand") {
        if (isRead) counts.reads++;
        else counts.writes++;
        countSource(label, isRead ? "reads" : "writes", 1);
      }
      const itemKey =
        pricingIndexes && ITEM_WRITES.has(command)
          ? ((input.Key as Item | undefined) ??
            Object.fromEntries(
              TABLE_KEY.map((k) => [k, (input.Item as Item)[k] as AttributeValue]),
            ))
          : undefined;
      const before = itemKey ? await lookUp(input.TableName, itemKey) : undefined;
      try {
        const result = await next(args);
        const reported = unitsOf(
          (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity,
        );
        const units = isRead ? readUnitsOf(command, input, result.output, reported) : reported;
        if (isRead) counts.readUnits += units;
        else counts.writeUnits += units;
        countSource(label, isRead ? "readUnits" : "writeUnits", units);
        if (itemKey) {
          const after = await lookUp(input.TableName, itemKey);
          for (const w of indexWrites(before, after)) {
            counts.indexWrites[w.index] = (counts.indexWrites[w.index] ?? 0) + 1;
            counts.indexWriteUnits += w.units;
            counts.writeUnits += w.units;
            countSource(`${label} → index ${w.index}`, "writeUnits", w.units);
          }
        }
        return result;
      } catch (error: unknown) {
        // A refused condition still costs one write unit (at least) in DynamoDB's billing;
        // it changes no item, so no index is written.
        if (error instanceof Error && error.name === "ConditionalCheckFailedException") {
          counts.conditionalFailures++;
          counts.writeUnits += 1;
          countSource(`${label} (refused)`, "writeUnits", 1);
        }
        throw error;
      }
    },
    { step: "initialize", name: "statuspilotBenchMeter" },
  );
}

/**
 * Meters every DynamoDBClient in this process, including the one the composition root builds:
 * each client gets a counting middleware (`middlewareStack.add`) before its first command. The
 * clients and dynalite underneath are real; only counting is added. To price index writes the
 * meter reads each written item before and after its write (uncounted look-ups): concurrent
 * writes to one item in between could be misattributed, which the cost bench (one message at a
 * time) avoids.
 */
export function installDynamoMeter(): void {
  if (installed) return;
  installed = true;
  const send = DynamoDBClient.prototype.send as (...args: unknown[]) => unknown;
  DynamoDBClient.prototype.send = function meteredSend(this: DynamoDBClient, ...args: unknown[]) {
    if (!metered.has(this)) {
      metered.add(this);
      meter(this);
    }
    return send.apply(this, args);
  } as typeof DynamoDBClient.prototype.send;
}

/** Counts since the last reset. */
export const dynamoCounts = (): DynamoCounts => ({
  ...counts,
  indexWrites: { ...counts.indexWrites },
  byCommand: { ...counts.byCommand },
  bySource: Object.fromEntries(Object.entries(counts.bySource).map(([k, v]) => [k, { ...v }])),
});

export function resetDynamoCounts(): void {
  counts = emptyDynamoCounts();
}
