import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { type App, type AppOverrides, composeLocalApp } from "#devstack/app";
import { loadWorkspace, type RunningEmulator, startEmulator } from "#emulator/server";
import type { PollBatchMessage, SyncMessage, TransitionMessage } from "#lib/app/contracts";
import type { ResolveHost } from "#lib/calendar/feed-fetch";
import type { PinnedFetch } from "#lib/calendar/pinned-connection";
import { ManualClock } from "#lib/core/clock";
import type { Queue, QueueEntry, SendOptions } from "#lib/core/ports";
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
  async send(message: M, opts?: SendOptions): Promise<void> {
    this.sent.push({ message, ...opts });
  }
  async sendBatch(entries: ReadonlyArray<QueueEntry<M>>): Promise<void> {
    for (const entry of entries) this.sent.push({ ...entry });
  }
}

export interface Stack {
  /** The App the handlers under test get: pass `() => stack.app` to their factories. */
  app: App;
  dynamo: LocalDynamo;
  emulator: RunningEmulator;
  clock: ManualClock;
  transitions: RecordingQueue<TransitionMessage>;
  syncs: RecordingQueue<SyncMessage | PollBatchMessage>;
  close(): Promise<void>;
}

export interface StackOptions {
  /**
   * Feeds on loopback and private addresses allowed, as in the local stack (the default here:
   * the tests serve their feeds on 127.0.0.1). False checks them as on AWS.
   */
  allowPrivateSourceAddresses?: boolean;
  /** The feeds' fetch and host resolution, for tests of what the sync fetches. */
  fetch?: typeof fetch;
  resolveHost?: ResolveHost;
  /** How a feed address that passed the check is requested (it records where it connects). */
  fetchPinned?: PinnedFetch;
  /** The token vault the App uses (e.g. one that counts its calls). */
  tokens?: AppOverrides["tokens"];
  /** Puts something between the App and dynalite (e.g. a counting proxy): its endpoint. */
  dynamoVia?: (endpoint: string) => Promise<string>;
}

/**
 * dynalite + the emulator over real HTTP, and the App for the handlers under test, composed
 * through the dev stack from explicit settings (the environment is left alone).
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const dynamo = await startDynalite();
  const clock = new ManualClock(FIXTURE_NOW_MS);
  const emulator = await startEmulator({
    workspace: loadWorkspace(fixturePath("workspace.json")),
    port: 0,
    clock,
    expirySweepMs: 0,
  });
  const transitions = new RecordingQueue<TransitionMessage>();
  const syncs = new RecordingQueue<SyncMessage | PollBatchMessage>();
  const app = composeLocalApp(
    {
      tableName: dynamo.tableName,
      dynamoEndpoint: options.dynamoVia
        ? await options.dynamoVia(dynamo.endpoint)
        : dynamo.endpoint,
      region: "us-east-1",
      serviceBaseUrl: emulator.apiBase,
      signingSecret: "demo-signing-secret",
      tokenKey: Buffer.alloc(32, 7).toString("base64"),
      adminApiKey: "test-admin-key",
      logLevel: "SILENT",
    },
    {
      clock,
      transitionQueue: transitions,
      syncQueue: syncs,
      allowPrivateSourceAddresses: options.allowPrivateSourceAddresses ?? true,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
      ...(options.fetchPinned ? { fetchPinned: options.fetchPinned } : {}),
      ...(options.tokens ? { tokens: options.tokens } : {}),
    },
  );
  return {
    app,
    dynamo,
    emulator,
    clock,
    transitions,
    syncs,
    close: async () => {
      await emulator.close();
      await dynamo.close();
    },
  };
}
