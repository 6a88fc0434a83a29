import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll } from "vitest";
import { createTableInput } from "#lib/store/table";

// dynalite ships CommonJS without types; this is the slice of it we use.
const dynalite = createRequire(import.meta.url)("dynalite") as (options: {
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
}) => Server;

export interface LocalDynamo {
  client: DynamoDBClient;
  tableName: string;
  endpoint: string;
  close(): Promise<void>;
}

/** Starts an in-memory dynalite on 127.0.0.1 (random port) and creates the table from its definition. */
export async function startDynalite(tableName = "statuspilot-test"): Promise<LocalDynamo> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  // Node closes idle keep-alive sockets after 5 s; the SDK may reuse one at that very moment and
  // get ECONNRESET. Outlive the client's idle sockets instead (a loaded machine stalls that long).
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 121_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
    // As in AWS: transient network errors are retried; conditional-check failures never are.
    maxAttempts: 3,
  });
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  return {
    client,
    tableName,
    endpoint,
    close: async () => {
      client.destroy();
      await new Promise<void>((resolve) => {
        // Let requests in flight finish (dynalite closes its store when the server closes, and a
        // write still running would then throw), but never wait long on a socket that hangs.
        const force = setTimeout(() => server.closeAllConnections(), 2_000);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}

/**
 * The test file's dynalite: started in a beforeAll and closed in an afterAll where this is called.
 * Its fields are read through to the running one, so only tests and hooks may read them.
 */
export function dynaliteForFile(tableName?: string): LocalDynamo {
  let started: LocalDynamo | undefined;
  beforeAll(async () => {
    started = await startDynalite(tableName);
  });
  afterAll(async () => {
    await started?.close();
  });
  const running = (): LocalDynamo => {
    if (!started) throw new Error("dynalite was read before the file's beforeAll started it");
    return started;
  };
  return {
    get client() {
      return running().client;
    },
    get tableName() {
      return running().tableName;
    },
    get endpoint() {
      return running().endpoint;
    },
    close: () => running().close(),
  };
}

/**
 * Creates a table and waits until dynalite marks it ACTIVE: it does so in a write of its own
 * after CreateTable answers, and on a loaded machine a put right away can find no table.
 */
export async function createActiveTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  for (let attempt = 0; attempt < 200; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === "ACTIVE") return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`table ${tableName} never became ACTIVE`);
}
