import { DeleteTableCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll } from "vitest";
import { createActiveTable, type LocalDynamo, startDynalite } from "./dynalite";

/** A table of its own in the file's dynalite, and how to drop it after its test. */
export interface FreshTable {
  client: DynamoDBClient;
  tableName: string;
  cleanup(): Promise<void>;
}

/**
 * One dynalite for the calling test file (started before its tests, closed after them) and a
 * fresh table in it at each call, named `<prefix>-<n>`: the contract suites build each test's
 * subject on a table no other test wrote to.
 */
export function tablePerTest(prefix: string): () => Promise<FreshTable> {
  let dynamo: LocalDynamo | undefined;
  let tables = 0;
  beforeAll(async () => {
    dynamo = await startDynalite();
  });
  afterAll(async () => {
    await dynamo?.close();
  });
  return async () => {
    if (dynamo === undefined) throw new Error("tablePerTest's tables are made inside tests only");
    const { client } = dynamo;
    const tableName = `${prefix}-${++tables}`;
    await createActiveTable(client, tableName);
    return {
      client,
      tableName,
      cleanup: async () => {
        await client.send(new DeleteTableCommand({ TableName: tableName }));
      },
    };
  };
}

/**
 * One dynalite for the calling test file: started before its tests (and handed to `ready`, which
 * builds the file's subjects on it), closed after them.
 */
export function dynaliteForFile(ready: (dynamo: LocalDynamo) => void): void {
  let dynamo: LocalDynamo | undefined;
  beforeAll(async () => {
    dynamo = await startDynalite();
    ready(dynamo);
  });
  afterAll(async () => {
    await dynamo?.close();
  });
}
