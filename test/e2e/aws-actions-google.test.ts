import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PackagedStack, packageStack } from "../support/osls-package";
import { type ActionRecorder, recordAwsActions } from "./aws-action-recorder";
import {
  addGoogleEvent,
  connectGoogle,
  deliverPushes,
  type GoogleE2e,
  googleChannels,
  googleFaults,
  installAs,
  postSettings,
  startGoogleE2e,
} from "./google-support";
import { deniedCalls } from "./role-grants";
import { advance, nowOf, settle } from "./support";

/**
 * The sync worker queues work on its own queue whenever a push-backed calendar's
 * channel needs care: the poll's check asks the upkeep (a repair, or a recreate after a
 * safety-net read found changes no push announced: lib/app/connect/connected-sync.ts askUpkeep), and an
 * upkeep that made a new channel queues the full read that follows it (lib/app/push/schedule.ts
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

describe("a push-backed Google calendar's AWS calls against the roles", () => {
  beforeAll(async () => {
    recorder = recordAwsActions();
    const packaging = packageStack();
    // A 4-hour channel: its renewal (at 80 %) falls due through the tick within the flow.
    e = await startGoogleE2e({ manualAt: T0, pushTtlMs: 4 * H });
    await installAs(e, "U001");
    expect((await connectGoogle(e)).landing).toBe("/settings?notice=calendar_connected");
    await deliverPushes(e);
    await advance(e, 3 * H + 30 * MIN);
    await deliverPushes(e);
    const [first] = (await googleChannels(e)).filter((c) => c.live);
    // The channel goes quiet; a change no push announces; the safety-net read finds it.
    await googleFaults(e, { silenceChannel: { id: String(first?.id) } });
    const start = (await nowOf(e)) + 7 * H;
    await addGoogleEvent(e, { summary: "Unannounced", start, end: start + 30 * MIN });
    await deliverPushes(e);
    await advance(e, 6 * H + 15 * MIN);
    await deliverPushes(e);
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
    expect(deniedCalls(stack, recorder.calls())).toEqual([]);
  });
});
