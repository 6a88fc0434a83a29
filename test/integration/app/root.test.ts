import { GetItemCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { compose } from "#lib/app/compose/compose";
import type { AppLog } from "#lib/app/compose/logger";
import { ALL_MODULES } from "#lib/app/compose/modules";
import { loadConfig } from "#lib/app/config";
import type { SyncMessage } from "#lib/app/contracts";
import type { Queue } from "#lib/core/ports";
import { useEmulatorStack } from "./emulator-harness";
import { block, MemoryQueue, MIN, T0 } from "./harness";

/* The composition root's wiring: the shared rate budget, the read before write, the log. */

const stack = useEmulatorStack({ faults: "drop_event=1" });
const { clock } = stack;

/** A log of our own that keeps every line, as the local stack's readable log would. */
function keepingLog(): AppLog & { lines: Array<{ level: string; message: string }> } {
  const lines: Array<{ level: string; message: string }> = [];
  const keep = (level: string) => (message: string) => {
    lines.push({ level, message });
  };
  return {
    lines,
    debug: keep("debug"),
    info: keep("info"),
    warn: keep("warn"),
    error: keep("error"),
    appendKeys: () => {},
    resetKeys: () => {},
    // Never called by the use cases; the handlers' middleware is not part of this test.
    logger: undefined as unknown as AppLog["logger"],
  };
}

const env = () => ({
  TABLE_NAME: stack.dynamo.tableName,
  DYNAMODB_ENDPOINT: stack.dynamo.endpoint,
  SERVICE_BASE_URL: stack.emulator.apiBase,
  SIGNING_SECRET: "root-test-secret",
  TOKEN_KEY: Buffer.alloc(32, 9).toString("base64"),
});

describe("the composition root", () => {
  it("writes through the shared rate budget, reads before writing and logs to the injected log", async () => {
    // Prepare
    const log = keepingLog();
    const app = compose(loadConfig(env()), {
      modules: ALL_MODULES,
      clock,
      log,
      transitionQueue: new MemoryQueue(),
      syncQueue: { send: async () => {} } satisfies Queue<SyncMessage>,
    });
    const pilot = app.pilot;
    if (pilot === undefined) throw new Error("the root builds the use cases");
    // An admin's token, which the shared budget charges (a user's own token costs it nothing).
    const key = { team: "T0CONF", user: "U0MEMBER2" };
    await pilot.upsertUser({
      key,
      tz: "Europe/Berlin",
      token: "xoxp-admin-0001",
      adminTokenUser: "U0ADMIN",
      sources: [{ id: "work", url: "https://cal.example/work.ics", kind: "ics" }],
      mode: "auto",
    });
    const before = stack.emulator.calls().at(-1)?.seq ?? 0;
    // Act
    await pilot.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    // Assess
    expect(app.log).toBe(log);
    expect(log.lines).toContainEqual({ level: "info", message: "status written" });
    const methods = stack.emulator
      .calls()
      .filter((c) => c.seq > before)
      .map((c) => c.method);
    expect(methods).toEqual(["users.profile.get", "users.profile.set"]);
    const book = await stack.dynamo.client.send(
      new GetItemCommand({
        TableName: stack.dynamo.tableName,
        Key: { PK: { S: "BUDGET#T0CONF#U0ADMIN" }, SK: { S: "BOOK" } },
        ConsistentRead: true,
      }),
    );
    // One slot, used by the member at the read and write's time.
    expect(JSON.parse(book.Item?.slots?.S ?? "[]")).toEqual([[clock.now(), "U0MEMBER2", 1]]);
  });
});
