import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, composeLocalApp, frozenAfterReturn } from "#devstack/app";
import { FrozenInvocationError, LambdaRuntime } from "#devstack/runtime";
import type { SyncMessage, TransitionMessage } from "#lib/app/contracts";
import { ManualClock } from "#lib/core/clock";
import { type LocalDynamo, startDynalite } from "../support/dynalite";

const T0 = Date.UTC(2025, 2, 10, 12, 0, 0);
const ALICE = { team: "T0DEMO", user: "U001" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The FrozenInvocationError behind `error` (the store wraps what the SDK threw), if any. */
function frozenBehind(error: unknown): FrozenInvocationError | undefined {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e instanceof FrozenInvocationError) return e;
  }
  return undefined;
}

/** A queue nothing reads: these tests only call DynamoDB. */
const idleQueue = <M>() => ({ send: async (_message: M) => undefined });

/**
 * On Lambda, work a handler leaves running after it returns is frozen with the sandbox. The dev
 * stack's App refuses DynamoDB calls from such work, as it refuses the queues and fetch.
 */
describe("the dev stack's freeze, for DynamoDB", () => {
  let dynamo: LocalDynamo;
  let runtime: LambdaRuntime;
  let app: App;

  beforeAll(async () => {
    dynamo = await startDynalite();
    const clock = new ManualClock(T0);
    runtime = new LambdaRuntime({ clock });
    app = composeLocalApp(
      {
        tableName: dynamo.tableName,
        dynamoEndpoint: dynamo.endpoint,
        region: "us-east-1",
        serviceBaseUrl: "http://127.0.0.1:9/api",
        signingSecret: "freeze-signing-secret",
        tokenKey: Buffer.alloc(32, 3).toString("base64"),
        logLevel: "SILENT",
      },
      {
        clock,
        ...frozenAfterReturn(runtime, {
          transitionQueue: idleQueue<TransitionMessage>(),
          syncQueue: idleQueue<SyncMessage>(),
          fetch: globalThis.fetch,
        }),
      },
    );
  });
  afterAll(async () => {
    await dynamo?.close();
  });

  it("answers a read the handler awaits, and refuses the one it left running after returning", async () => {
    // Prepare: a handler that reads once, then returns while a second read waits to start
    let duringInvocation: unknown = "not read";
    let leftover: Promise<unknown> = Promise.resolve();
    const handler = async () => {
      duringInvocation = await app.admin.getUser(ALICE);
      leftover = sleep(30).then(() => app.admin.getUser(ALICE));
      return "done";
    };
    // Act
    const result = await runtime.invoke({ name: "adminUsers", timeoutMs: 5_000, handler }, {});
    const late = await leftover.then(
      () => "answered",
      (error: unknown) => error,
    );
    // Assess: the awaited read reached the table (no such user), the leftover one never did
    expect(result).toBe("done");
    expect(duringInvocation).toBeUndefined();
    const frozen = frozenBehind(late);
    expect(frozen).toMatchObject({ code: "frozen", functionName: "adminUsers" });
    expect(frozen?.port).toMatch(/^dynamodb\./);
    expect(runtime.refusals().map((r) => r.port)).toEqual([frozen?.port]);
  });

  it("refuses DynamoDB calls from a handler cut off at its timeout", async () => {
    // Prepare: a handler that outlives its 20 ms timeout, then reads
    let late: unknown = "not read";
    const handler = async () => {
      await sleep(60);
      late = await app.admin.getUser(ALICE).catch((error: unknown) => error);
    };
    // Act
    await runtime.invoke({ name: "syncWorker", timeoutMs: 20, handler }, {}).catch(() => {});
    await sleep(90);
    // Assess
    expect(frozenBehind(late)).toMatchObject({ code: "frozen", functionName: "syncWorker" });
  });

  it("lets tooling outside any invocation (the stack registering users) read as it likes", async () => {
    // Act + Assess
    await expect(app.admin.getUser(ALICE)).resolves.toBeUndefined();
  });
});
