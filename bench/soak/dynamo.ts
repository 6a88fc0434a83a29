import { createRequire } from "node:module";
import type { AddressInfo, Server } from "node:net";
import { CreateTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { createTableInput } from "../../lib/store/table";

// dynalite ships CommonJS without types; this is the slice of it we use.
const dynalite = createRequire(import.meta.url)("dynalite") as (options: {
  createTableMs?: number;
}) => Server & { closeAllConnections?: () => void };

export interface SoakDynamo {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * dynalite on loopback with the table from its shared definition. Closing also drops the
 * handlers' keep-alive connections, so a finished soak exits at once.
 */
export async function startSoakDynamo(tableName: string): Promise<SoakDynamo> {
  const server = dynalite({ createTableMs: 0 });
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
