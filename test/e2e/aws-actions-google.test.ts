import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConditions } from "../support/cfn-conditions";
import { type PackagedStack, packageStack } from "../support/osls-package";
import { type ActionRecorder, type AwsCall, recordAwsActions } from "./aws-action-recorder";
import {
  addGoogleEvent,
  connectGoogle,
  type GoogleE2e,
  googleChannels,
  googleFaults,
  installAs,
  postSettings,
  startGoogleE2e,
} from "./google-support";
import { advance, nowOf, settle } from "./support";

/**
 * The sync worker queues work on its own queue whenever a push-backed calendar's
 * channel needs care: the poll's check asks the upkeep (a repair, or a recreate after a
 * safety-net read found changes no push announced: lib/app/connect-read.ts askUpkeep), and an
 * upkeep that made a new channel queues the full read that follows it (lib/app/push-schedule.ts
 * runUpkeep). Each of those is an sqs:SendMessage on the sync queue by the syncWorker function,
 * so its role must grant it. test/e2e/aws-actions.test.ts connects no calendar through a
 * provider's API, so it never sees these calls; this flow (connect, a renewal through the tick,
 * the Google safety net's recreate, a disconnect) does, and checks every other call too.
 */
const MIN = 60_000;
const H = 60 * MIN;
const T0 = Date.parse("2026-03-03T06:00:00.000Z");
const SYNC_QUEUE = "statuspilot-local-sync";

let recorder: ActionRecorder;
let stack: PackagedStack | undefined;
let e: GoogleE2e | undefined;

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

const QUEUES: Record<string, string> = {
  TransitionQueue: "statuspilot-local-transition",
  SyncQueue: SYNC_QUEUE,
};

const roleOf = (functionName: string) =>
  `${functionName[0]?.toUpperCase()}${functionName.slice(1)}Role`;

function statementsOf(role: string): Statement[] {
  const policies = (stack?.resources[role]?.Properties.Policies ?? []) as unknown[];
  const resolved = resolveConditions(policies, stack?.conditions ?? {}) as Array<{
    PolicyDocument: { Statement: Statement[] };
  }>;
  return resolved.flatMap((p) => p.PolicyDocument.Statement).filter((s) => s.Effect === "Allow");
}

/** What one statement grants `action` on, in the recorder's terms (as aws-actions.test.ts). */
function grantedOn(s: Statement, action: string): string[] {
  if (![s.Action].flat().includes(action)) return [];
  if (action.startsWith("kms:")) {
    const context = s.Condition?.StringEquals ?? {};
    return [
      context["kms:EncryptionContext:field"] ?? context["kms:EncryptionContext:purpose"] ?? [],
    ]
      .flat()
      .map(String);
  }
  const resource = JSON.stringify(s.Resource);
  if (action.startsWith("dynamodb:")) {
    const index = /\/index\/(\w+)/.exec(resource);
    return [index ? `index/${index[1]}` : "table"];
  }
  if (action === "sqs:SendMessage") {
    return Object.entries(QUEUES)
      .filter(([id]) => resource.includes(`"${id}"`))
      .map(([, name]) => name);
  }
  return ["*"];
}

const allowsCall = (call: AwsCall): boolean =>
  statementsOf(roleOf(call.functionName)).some((s) =>
    grantedOn(s, call.action).some((on) => on === call.on || on === "*"),
  );

/** The calls of the flow that the calling function's role does not grant, once each. */
const deniedCalls = (): string[] => [
  ...new Set(
    recorder
      .calls()
      .filter((c) => !allowsCall(c))
      .map((c) => `${roleOf(c.functionName)} ${c.action} on ${c.on}`),
  ),
];

async function deliver(g: GoogleE2e): Promise<void> {
  await fetch(`${g.googleUrl}/_control/flush`, { method: "POST" });
  await settle(g);
  await advance(g, 0);
}

describe("a push-backed Google calendar's AWS calls against the roles", () => {
  beforeAll(async () => {
    recorder = recordAwsActions();
    const packaging = packageStack();
    // A 4-hour channel: its renewal (at 80 %) falls due through the tick within the flow.
    e = await startGoogleE2e({ manualAt: T0, pushTtlMs: 4 * H });
    await installAs(e, "U001");
    expect((await connectGoogle(e)).landing).toBe("/settings?notice=calendar_connected");
    await deliver(e);
    await advance(e, 3 * H + 30 * MIN);
    await deliver(e);
    const [first] = (await googleChannels(e)).filter((c) => c.live);
    // The channel goes quiet; a change no push announces; the safety-net read finds it.
    await googleFaults(e, { silenceChannel: { id: String(first?.id) } });
    const start = (await nowOf(e)) + 7 * H;
    await addGoogleEvent(e, { summary: "Unannounced", start, end: start + 30 * MIN });
    await deliver(e);
    await advance(e, 6 * H + 15 * MIN);
    await deliver(e);
    // The person disconnects: the web stops the channel and removes the upkeep entry.
    await postSettings(e, "/settings/disconnect", { confirm: "on" });
    await settle(e);
    stack = await packaging;
  }, 300_000);

  afterAll(async () => {
    recorder?.restore();
    await e?.close();
    await stack?.remove();
  });

  it("has the sync worker queue on the sync queue (the upkeep it asks, the read after a recreate)", () => {
    const sends = recorder
      .calls()
      .filter(
        (c) =>
          c.functionName === "syncWorker" && c.action === "sqs:SendMessage" && c.on === SYNC_QUEUE,
      );
    expect(sends.length).toBeGreaterThan(0);
  });

  // SyncWorkerRole lacked sqs:SendMessage on its own queue once: on AWS the poll's check of a
  // calendar whose channel lapsed or was overdue then threw before it read, its re-queue was
  // refused the same way, and no repair ever ran, so every channel from before upkeep entries
  // existed lapsed for good. A recreated channel's catch-up read was refused too.
  it("grants every call of the Google flows (connect, renewal, recreate, disconnect)", () => {
    expect(deniedCalls()).toEqual([]);
  });
});
