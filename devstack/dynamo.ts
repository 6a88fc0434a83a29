import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DynamoDBClient,
} from "@aws-sdk/client-dynamodb";
import { isAddressInUse, PortInUseError } from "./errors";

interface DynaliteOptions {
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
  path?: string;
}

// dynalite ships CommonJS without types; this is the slice of it we use.
const dynalite = createRequire(import.meta.url)("dynalite") as (options: DynaliteOptions) => Server;

/** Dummy credentials: dynalite accepts any, but the SDK refuses to sign without some. */
export const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

export interface LocalDynamo {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * DynamoDB on loopback (dynalite), with the table created from the shared definition and ready
 * (ACTIVE at once) before this resolves. In memory, or on disk under `path` (a LevelDB
 * directory), where a table kept from an earlier run is used as it is.
 */
export async function startLocalDynamo(options: {
  table: Omit<CreateTableCommandInput, "TableName"> & { TableName?: string };
  tableName: string;
  port?: number;
  region?: string;
  /** Keep the data in this directory, so it survives a restart. */
  path?: string;
}): Promise<LocalDynamo> {
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.path ? { path: options.path } : {}),
  });
  // Node closes idle keep-alive sockets after 5 s; the SDK may reuse one at that very moment and
  // get ECONNRESET. Outlive the client's idle sockets instead (a loaded machine stalls that long).
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 121_000;
  const port = options.port ?? 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: unknown) =>
      reject(
        isAddressInUse(error) ? new PortInUseError(port, "DynamoDB", { cause: error }) : error,
      ),
    );
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: options.region ?? "us-east-1",
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    await client.send(new CreateTableCommand({ ...options.table, TableName: options.tableName }));
  } catch (error: unknown) {
    // On disk, the table of the last run is still there: keep it.
    if (!(options.path && error instanceof Error && error.name === "ResourceInUseException")) {
      client.destroy();
      server.close();
      throw error;
    }
  }
  try {
    // dynalite marks the table ACTIVE in a write of its own; on disk (and on a loaded machine)
    // that lands after CreateTable answers, and until then every call is ResourceNotFound.
    for (let i = 0; i < 250; i++) {
      const { Table } = await client.send(
        new DescribeTableCommand({ TableName: options.tableName }),
      );
      if (Table?.TableStatus === "ACTIVE") break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    close: () =>
      new Promise<void>((resolve) => {
        // Let requests in flight finish (dynalite closes its store when the server closes, and a
        // write still running would then throw), but never wait long on a socket that hangs.
        // A keep-alive socket whose request ends after this is idle then: closed as soon as it
        // is, not held open (and the stop with it) until the force.
        const force = setTimeout(() => server.closeAllConnections(), 2_000);
        const idle = setInterval(() => server.closeIdleConnections(), 10);
        server.close(() => {
          clearTimeout(force);
          clearInterval(idle);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
