import { afterEach, describe, expect, it, vi } from "vitest";
import { createLog } from "#lib/app/compose/logger";
import { ManualClock } from "#lib/core/clock";
import type { EventOnce, WebhookDeps, WebhookRequest } from "../../../lib/webhooks";
import { ACK_DEADLINE_MS, handleServiceEvent, RecentIds, signV0 } from "../../../lib/webhooks";

const NOW = 1_767_268_800_000;
const SECRET = "unit-signing-secret";

/** A signed user_change for U001, as the service posts it. */
function userChange(eventId: string): WebhookRequest {
  const rawBody = JSON.stringify({
    type: "event_callback",
    team_id: "T0DEMO",
    event_id: eventId,
    event_time: NOW / 1000,
    event: { type: "user_change", user: { id: "U001", profile: { status_text: "Lunch" } } },
  });
  const ts = String(NOW / 1000);
  return {
    path: "/service/events",
    headers: { "x-svc-request-timestamp": ts, "x-svc-signature": signV0(SECRET, ts, rawBody) },
    query: {},
    params: {},
    rawBody,
  };
}

function depsRecording(recorded: string[], queued: unknown[]): WebhookDeps {
  return {
    clock: new ManualClock(NOW),
    log: createLog({ level: "SILENT" }),
    signingSecret: async () => SECRET,
    useCases: {
      recordUserChange: async (change: { eventId: string }) => {
        recorded.push(change.eventId);
        return true;
      },
    },
    admin: { userZone: async () => "Europe/Lisbon" },
    transitionQueue: { send: async (message: unknown) => void queued.push(message) },
    requestSync: async () => true,
  } as unknown as WebhookDeps;
}

describe("handleServiceEvent's once-per-event gate", () => {
  afterEach(() => vi.useRealTimers());

  it("records an event_id once and answers its repeat as a duplicate", async () => {
    // Prepare
    const recorded: string[] = [];
    const deps = depsRecording(recorded, []);
    const once = new RecentIds();
    // Act
    const first = await handleServiceEvent(userChange("Ev01"), deps, { once });
    const again = await handleServiceEvent(userChange("Ev01"), deps, { once });
    // Assess
    expect([first, again]).toEqual([
      { status: 200, json: { ok: true, duplicate: false } },
      { status: 200, json: { ok: true, duplicate: true } },
    ]);
    expect(recorded).toEqual(["Ev01"]);
  });

  it("answers within the deadline and queues the change when the gate itself is slow", async () => {
    // Prepare: a gate whose store never answers
    vi.useFakeTimers();
    const queued: unknown[] = [];
    const stuck: EventOnce = { run: () => new Promise(() => undefined) };
    // Act
    const pending = handleServiceEvent(userChange("Ev02"), depsRecording([], queued), {
      once: stuck,
    });
    await vi.advanceTimersByTimeAsync(ACK_DEADLINE_MS);
    const reply = await pending;
    // Assess
    expect(reply).toEqual({ status: 200, json: { ok: true, deferred: true } });
    expect(queued).toMatchObject([{ reason: "user_change", change: { eventId: "Ev02" } }]);
  });

  it("answers an event that tells nothing new without the gate or recording", async () => {
    // Prepare: the use case recognises an echo of ours (Ev03) and a recorded repeat (Ev04)
    const recorded: string[] = [];
    const base = depsRecording(recorded, []);
    const deps = {
      ...base,
      useCases: {
        ...base.useCases,
        isNothingNew: async (change: { eventId: string }) =>
          change.eventId === "Ev03" ? ("echo" as const) : ("duplicate" as const),
      },
    } as WebhookDeps;
    const runs: string[] = [];
    const once: EventOnce = {
      run: async (id, fn) => {
        runs.push(id);
        return { value: await fn() };
      },
    };
    // Act
    const echo = await handleServiceEvent(userChange("Ev03"), deps, { once });
    const repeat = await handleServiceEvent(userChange("Ev04"), deps, { once });
    // Assess: neither touched the gate (its store writes) nor recorded anything
    expect(echo).toEqual({ status: 200, json: { ok: true, duplicate: false } });
    expect(repeat).toEqual({ status: 200, json: { ok: true, duplicate: true } });
    expect(runs).toEqual([]);
    expect(recorded).toEqual([]);
  });

  it("records through the gate an event that tells something", async () => {
    // Prepare
    const recorded: string[] = [];
    const base = depsRecording(recorded, []);
    const deps = {
      ...base,
      useCases: { ...base.useCases, isNothingNew: async () => undefined },
    } as WebhookDeps;
    const once = new RecentIds();
    // Act
    const reply = await handleServiceEvent(userChange("Ev05"), deps, { once });
    // Assess
    expect(reply).toEqual({ status: 200, json: { ok: true, duplicate: false } });
    expect(recorded).toEqual(["Ev05"]);
  });
});
