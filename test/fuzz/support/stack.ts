import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ScanCommand } from "@aws-sdk/client-dynamodb";
import { loadWorkspace, type RunningEmulator, startEmulator } from "#emulator/server";
import type { App } from "#lib/app/compose/app";
import { compose } from "#lib/app/compose/compose";
import { ALL_MODULES } from "#lib/app/compose/modules";
import { loadConfig } from "#lib/app/config";
import type { SyncMessage, TransitionMessage } from "#lib/app/contracts";
import { ManualClock } from "#lib/core/clock";
import type { Queue } from "#lib/core/ports";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";
import { type LogCapture, startLogCapture } from "./log-capture";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const fixturePath = (name: string) => path.join(repoRoot, "test/fixtures/events", name);

/** The fixtures' signing instant; the fuzz clock stands still there. */
export const NOW_MS = 1_767_268_800_000;
export const NOW_S = Math.floor(NOW_MS / 1000);

/** The registered user every signed path leads to. */
export const ALICE = { team: "T0DEMO", user: "U001" } as const;

/** Channel ids bound to Alice's source. */
export const CHANNELS = {
  google: "chan-fuzz-google",
  graph: "sub-fuzz-graph",
  generic: "office",
  /** A generic hook id bound without a secret: its pushes are still signed with its token. */
  genericNoSecret: "office-unsigned",
} as const;

const SIGNING_SECRET = "fuzz-signing-secret-5f1c9a";
/** A channel's push token, computed here as the README documents it. */
const tokenFor = (channelId: string): string =>
  createHmac("sha256", SIGNING_SECRET).update(`channel-token:${channelId}`).digest("base64url");

/** Every secret the app holds; none of them may appear in a log line. */
export const SECRETS = {
  signing: SIGNING_SECRET,
  userToken: "xoxp-fuzz-user-token-83b2e1",
  adminKey: "fuzz-admin-key-7d4e02",
  googleToken: tokenFor(CHANNELS.google),
  graphClientState: tokenFor(CHANNELS.graph),
  genericHook: tokenFor(CHANNELS.generic),
  sourceSecret: "fuzz-source-secret-a61f",
  tokenKey: Buffer.alloc(32, 0x5a).toString("base64"),
  oauthClientSecret: "fuzz-oauth-client-secret-c0ffee",
  webKey: "fuzz-web-key-0123456789abcdef-9e4d71",
  bobToken: "xoxp-fuzz-bob-token-19c4aa",
} as const;

/** The front door's public settings, as a deployment sets them (https: `__Host-` cookies). */
export const FRONT_DOOR = {
  clientId: "1111.fuzz",
  publicBaseUrl: "https://statuspilot.fuzz.example",
} as const;

/** A second person signed in through the front door: their valid cookies are Alice's forgeries. */
export const BOB = { team: "T0DEMO", user: "U002" } as const;

/** A queue that only counts what it was asked to send. */
export class CountingQueue<M> implements Queue<M> {
  readonly sent: M[] = [];
  async send(message: M): Promise<void> {
    this.sent.push(message);
  }
}

/** Everything a fuzz property checks after each request. */
export interface Observation {
  /** The table's items, canonically ordered. */
  items: string;
  syncs: number;
  transitions: number;
  serviceCalls: number;
}

export interface FuzzStack {
  /** The App the handlers under test get: pass `() => stack.app` to their factories. */
  app: App;
  dynamo: LocalDynamo;
  emulator: RunningEmulator;
  clock: ManualClock;
  syncs: CountingQueue<SyncMessage>;
  transitions: CountingQueue<TransitionMessage>;
  logs: LogCapture;
  observe(): Promise<Observation>;
  close(): Promise<void>;
}

async function scanAll(dynamo: LocalDynamo): Promise<string> {
  const rows: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.client.send(
      new ScanCommand({
        TableName: dynamo.tableName,
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start as never } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      const sorted = Object.fromEntries(
        Object.entries(item).sort(([a], [b]) => a.localeCompare(b)),
      );
      rows.push(JSON.stringify(sorted));
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return rows.sort().join("\n");
}

/**
 * dynalite + the emulator over real HTTP + the real composition root, with counting queues,
 * every log level on, and Alice registered with a token, sources and push channels.
 */
export async function startFuzzStack(
  options: { adminApiKey?: boolean; frontDoor?: boolean } = {},
): Promise<FuzzStack> {
  const dynamo = await startDynalite();
  const clock = new ManualClock(NOW_MS);
  const emulator = await startEmulator({
    workspace: loadWorkspace(fixturePath("workspace.json")),
    port: 0,
    clock,
    expirySweepMs: 0,
  });
  const syncs = new CountingQueue<SyncMessage>();
  const transitions = new CountingQueue<TransitionMessage>();
  const logs = startLogCapture();
  // The settings a deployment gives (devstack/app.ts's LocalAppConfig has no front door yet, so
  // the same names are passed to the composition root here), with the front door configured.
  const app = compose(
    loadConfig({
      TABLE_NAME: dynamo.tableName,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AWS_REGION: "us-east-1",
      SERVICE_BASE_URL: emulator.apiBase,
      SIGNING_SECRET: SECRETS.signing,
      TOKEN_KEY: SECRETS.tokenKey,
      // Without it the admin API requires API Gateway's IAM authorizer, as on AWS.
      ...(options.adminApiKey === false ? {} : { ADMIN_API_KEY: SECRETS.adminKey }),
      // Every line the app could write is written, so a leak at any level is seen.
      LOG_LEVEL: "DEBUG",
      // Without it (a deployment mistake) every web route answers 503 and says what to set.
      ...(options.frontDoor === false
        ? {}
        : {
            OAUTH_CLIENT_ID: FRONT_DOOR.clientId,
            OAUTH_CLIENT_SECRET: SECRETS.oauthClientSecret,
            WEB_KEY: SECRETS.webKey,
            PUBLIC_BASE_URL: FRONT_DOOR.publicBaseUrl,
          }),
    }),
    { modules: ALL_MODULES, clock, syncQueue: syncs, transitionQueue: transitions },
  );

  const pilot = app.pilot;
  if (!pilot) throw new Error("the composition root built no StatusPilot");
  await pilot.upsertUser({
    key: ALICE,
    tz: "Europe/Berlin",
    token: SECRETS.userToken,
    sources: [
      // Public names: the stack checks feed addresses as on AWS. Nothing is fetched here.
      { id: "office", url: "https://calendar.example/office.ics", kind: "ics" },
      {
        id: "private",
        url: "https://calendar.example/private.ics",
        kind: "ics",
        secret: SECRETS.sourceSecret,
      },
    ],
    mode: "auto",
  });
  await pilot.putChannel(CHANNELS.google, {
    key: ALICE,
    sourceId: "office",
    secret: SECRETS.googleToken,
  });
  await pilot.putChannel(CHANNELS.graph, {
    key: ALICE,
    sourceId: "office",
    secret: SECRETS.graphClientState,
  });
  await pilot.putChannel(CHANNELS.generic, {
    key: ALICE,
    sourceId: "office",
    secret: SECRETS.genericHook,
  });
  await pilot.putChannel(CHANNELS.genericNoSecret, { key: ALICE, sourceId: "private" });
  // Both sign in through the front door once, which gives each a session epoch.
  const useCases = app.frontDoor?.useCases;
  if (!useCases) throw new Error("the composition root built no front door");
  await useCases.completeInstall({ key: ALICE, token: SECRETS.userToken, tz: "Europe/Berlin" });
  await useCases.completeInstall({ key: BOB, token: SECRETS.bobToken, tz: "UTC" });

  return {
    app,
    dynamo,
    emulator,
    clock,
    syncs,
    transitions,
    logs,
    observe: async () => ({
      items: await scanAll(dynamo),
      syncs: syncs.sent.length,
      transitions: transitions.sent.length,
      serviceCalls: emulator.calls().length,
    }),
    close: async () => {
      logs.stop();
      await emulator.close();
      await dynamo.close();
    },
  };
}

/** The service-event fixture's body, a well-formed user_change for Alice. */
export const userChangeFixtureBody = (): string =>
  (JSON.parse(readFileSync(fixturePath("service-user-change.json"), "utf8")) as { body: string })
    .body;
