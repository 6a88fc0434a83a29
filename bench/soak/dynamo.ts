import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { CreateTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { createTableInput } from "#lib/store/table";

// dynalite ships CommonJS without types; this is the slice of it we use.
const dynalite = createRequire(import.meta.url)("dynalite") as (options: {
  createTableMs?: number;
}) => Server & { closeAllConnections?: () => void };

export interface SoakDynamo {
  endpoint: string;
  /** Requests received and not yet answered. */
  inFlight(): number;
  /** The oldest unanswered requests: operation and real milliseconds waiting. */
  oldest(limit: number): Array<{ operation: string; waitingMs: number }>;
  /** Requests answered so far. */
  served(): number;
  close(): Promise<void>;
}

/**
 * dynalite on loopback with the table from its shared definition. Closing also drops the
 * handlers' keep-alive connections, so a finished soak exits at once.
 */
export async function startSoakDynamo(tableName: string): Promise<SoakDynamo> {
  const server = dynalite({ createTableMs: 0 });
  // Node closes idle keep-alive sockets after 5 s; the SDK may reuse one at that very moment and
  // get ECONNRESET. Outlive the client's idle sockets instead (a loaded machine stalls that long).
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 121_000;
  // Every request is tracked until its response closes, so the soak's quiet check sees
  // queries a handler left running and a hang names the operation it hangs on.
  const open = new Map<number, { operation: string; since: number }>();
  let nextId = 0;
  let served = 0;
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const id = nextId++;
    const target = String(req.headers["x-amz-target"] ?? "unknown");
    open.set(id, { operation: target.replace(/^DynamoDB_\d+\./, ""), since: performance.now() });
    res.once("close", () => {
      open.delete(id);
      served++;
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    inFlight: () => open.size,
    oldest: (limit) => {
      const now = performance.now();
      return [...open.values()]
        .slice(0, limit)
        .map((r) => ({ operation: r.operation, waitingMs: Math.round(now - r.since) }));
    },
    served: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
