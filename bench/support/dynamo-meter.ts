import { DynamoDBClient } from "@aws-sdk/client-dynamodb";

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

export interface DynamoCounts {
  reads: number;
  writes: number;
  /** Read/write request units as DynamoDB reported them (ReturnConsumedCapacity TOTAL). */
  readUnits: number;
  writeUnits: number;
  /** Conditional writes DynamoDB refused (lost races); they are billed as writes too. */
  conditionalFailures: number;
  byCommand: Record<string, number>;
}

const zero = (): DynamoCounts => ({
  reads: 0,
  writes: 0,
  readUnits: 0,
  writeUnits: 0,
  conditionalFailures: 0,
  byCommand: {},
});

let counts = zero();
let installed = false;
const metered = new WeakSet<DynamoDBClient>();

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

/** Counts one command and the units it consumed; the middleware body, exported for tests. */
function meter(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? "unknown");
      const input = args.input as Record<string, unknown>;
      if (METERED.has(command)) input.ReturnConsumedCapacity = "TOTAL";
      const isRead = READS.has(command);
      counts.byCommand[command] = (counts.byCommand[command] ?? 0) + 1;
      if (command !== "CreateTableCommand") {
        if (isRead) counts.reads++;
        else counts.writes++;
      }
      try {
        const result = await next(args);
        const units = unitsOf((result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity);
        if (isRead) counts.readUnits += units;
        else counts.writeUnits += units;
        return result;
      } catch (error: unknown) {
        // A refused condition still costs one write unit (at least) in DynamoDB's billing.
        if (error instanceof Error && error.name === "ConditionalCheckFailedException") {
          counts.conditionalFailures++;
          counts.writeUnits += 1;
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
 * clients and dynalite underneath are real; only counting is added.
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
  byCommand: { ...counts.byCommand },
});

export function resetDynamoCounts(): void {
  counts = zero();
}
