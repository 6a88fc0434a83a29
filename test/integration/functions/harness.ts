import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { loadWorkspace, type RunningEmulator, startEmulator } from "../../../emulator/server";
import type { SyncMessage, TransitionMessage } from "../../../lib/app/contracts";
import { resetApp, setAppOverrides } from "../../../lib/app/root";
import type { ResolveHost } from "../../../lib/calendar/feed-fetch";
import { ManualClock } from "../../../lib/core/clock";
import type { Queue } from "../../../lib/core/ports";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const fixturePath = (name: string) => path.join(repoRoot, "test/fixtures/events", name);

/** An API Gateway v2 event from test/fixtures/events. */
export const eventFixture = (name: string): APIGatewayProxyEventV2 =>
  JSON.parse(readFileSync(fixturePath(name), "utf8")) as APIGatewayProxyEventV2;

/** The instant the fixtures were signed at (their x-svc-request-timestamp). */
export const FIXTURE_NOW_MS = 1_767_268_800_000;

export const lambdaContext = (functionName: string): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName,
  functionVersion: "$LATEST",
  invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${functionName}`,
  memoryLimitInMB: "512",
  awsRequestId: "c6af9ac6-7b61-11e6-9a41-93e812345678",
  logGroupName: `/aws/lambda/${functionName}`,
  logStreamName: "2026/01/01/[$LATEST]abcdef",
  getRemainingTimeInMillis: () => 10_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

/** A queue that only records, so a test sees what a handler enqueued. */
export class RecordingQueue<M> implements Queue<M> {
  readonly sent: Array<{ message: M; delaySeconds?: number; dedupeKey?: string }> = [];
  async send(message: M, opts?: { delaySeconds?: number; dedupeKey?: string }): Promise<void> {
    this.sent.push({ message, ...opts });
  }
}

export interface Stack {
  dynamo: LocalDynamo;
  emulator: RunningEmulator;
  clock: ManualClock;
  transitions: RecordingQueue<TransitionMessage>;
  syncs: RecordingQueue<SyncMessage>;
  close(): Promise<void>;
}

const ENV_KEYS = [
  "TABLE_NAME",
  "DYNAMODB_ENDPOINT",
  "SERVICE_BASE_URL",
  "SIGNING_SECRET",
  "TOKEN_KEY",
  "ADMIN_API_KEY",
  "LOG_LEVEL",
  "POWERTOOLS_DEV",
] as const;

export interface StackOptions {
  /**
   * Feeds on loopback and private addresses allowed, as in the local stack (the default here:
   * the tests serve their feeds on 127.0.0.1). False checks them as on AWS.
   */
  allowPrivateSourceAddresses?: boolean;
  /** The feeds' fetch and host resolution, for tests of what the sync fetches. */
  fetch?: typeof fetch;
  resolveHost?: ResolveHost;
}

/** dynalite + the emulator over real HTTP, and the composition root pointed at them. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const dynamo = await startDynalite();
  const clock = new ManualClock(FIXTURE_NOW_MS);
  const emulator = await startEmulator({
    workspace: loadWorkspace(fixturePath("workspace.json")),
    port: 0,
    clock,
    expirySweepMs: 0,
  });
  const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
  Object.assign(process.env, {
    TABLE_NAME: dynamo.tableName,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    SERVICE_BASE_URL: emulator.apiBase,
    SIGNING_SECRET: "demo-signing-secret",
    TOKEN_KEY: Buffer.alloc(32, 7).toString("base64"),
    ADMIN_API_KEY: "test-admin-key",
    LOG_LEVEL: "SILENT",
  });
  const transitions = new RecordingQueue<TransitionMessage>();
  const syncs = new RecordingQueue<SyncMessage>();
  resetApp();
  setAppOverrides({
    clock,
    transitionQueue: transitions,
    syncQueue: syncs,
    allowPrivateSourceAddresses: options.allowPrivateSourceAddresses ?? true,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
  });
  return {
    dynamo,
    emulator,
    clock,
    transitions,
    syncs,
    close: async () => {
      resetApp();
      for (const k of ENV_KEYS) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
      await emulator.close();
      await dynamo.close();
    },
  };
}
