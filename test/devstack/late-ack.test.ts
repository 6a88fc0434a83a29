import { describe, expect, it } from "vitest";
import { LambdaRuntime } from "#devstack/runtime";
import type { TransitionMessage } from "#lib/app/contracts";
import { ManualClock } from "#lib/core/clock";
import { silentLog } from "#lib/core/ports";
import type { UserChange } from "#lib/core/types";
import { signV0 } from "#lib/http/signature";
import { handleServiceEvent } from "#lib/webhooks/handle-service-event";

const T0 = Date.UTC(2025, 2, 10, 12, 0, 0);
const SECRET = "late-ack-signing-secret";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The events handler's "late ack": when recording a user_change outlasts the acknowledgement
 * deadline it answers at once and queues the change. What it leaves running after that answer
 * is frozen on Lambda; this pins that nothing it promises depends on that work.
 */
describe("the events handler's late acknowledgement under the freeze", () => {
  it("queues the change before answering; only the abandoned recording is refused", async () => {
    // Prepare
    const clock = new ManualClock(T0);
    const runtime = new LambdaRuntime({ clock });
    const storeWrites: string[] = [];
    const store = runtime.guard("store", {
      async recordChange(eventId: string): Promise<void> {
        storeWrites.push(eventId);
      },
    });
    const queued: TransitionMessage[] = [];
    const transitionQueue = runtime.guard("transitionQueue", {
      async send(message: TransitionMessage): Promise<void> {
        queued.push(message);
      },
    });
    // A slow store: the recording takes longer than the 20 ms deadline.
    const recordUserChange = async (change: UserChange): Promise<boolean> => {
      await sleep(80);
      await store.recordChange(change.eventId);
      return true;
    };
    const rawBody = JSON.stringify({
      type: "event_callback",
      team_id: "T0DEMO",
      event_id: "Ev0LATE",
      event_time: T0 / 1000,
      event: {
        type: "user_change",
        user: { id: "U001", profile: { status_text: "Lunch", status_emoji: ":taco:" } },
      },
    });
    const ts = String(T0 / 1000);
    const handler = () =>
      handleServiceEvent(
        {
          path: "/service/events",
          headers: {
            "x-svc-request-timestamp": ts,
            "x-svc-signature": signV0(SECRET, ts, rawBody),
          },
          query: {},
          params: {},
          rawBody,
        },
        {
          clock,
          log: { ...silentLog, appendKeys: () => {} },
          signingSecret: async () => SECRET,
          useCases: {
            recordUserChange,
            scheduleOutOfOffice: async () => {
              throw new Error("not used");
            },
            listOutOfOffice: async () => [],
            cancelOutOfOffice: async () => false,
            recordTokensRevoked: async () => 0,
            recordAppUninstalled: async () => 0,
          },
          admin: { findChannel: async () => undefined, userZone: async () => "UTC" },
          transitionQueue,
          requestSync: async () => true,
        },
        { ackDeadlineMs: 20 },
      );
    // Act
    const reply = await runtime.invoke({ name: "serviceEvents", timeoutMs: 10_000, handler }, {});
    await sleep(150);
    // Assess: the answer says deferred and the change is on the queue for the worker to record.
    expect(reply).toMatchObject({ status: 200, json: { ok: true, deferred: true } });
    expect(queued).toEqual([
      expect.objectContaining({
        team: "T0DEMO",
        user: "U001",
        reason: "user_change",
        change: expect.objectContaining({ eventId: "Ev0LATE" }),
      }),
    ]);
    // The recording the handler raced against kept running after the answer: refused here,
    // frozen on Lambda (or resumed in a later invocation of the same sandbox).
    expect(storeWrites).toEqual([]);
    expect(runtime.refusals()).toEqual([
      expect.objectContaining({ functionName: "serviceEvents", port: "store.recordChange" }),
    ]);
  });
});
