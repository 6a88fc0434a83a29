import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ACK_DEADLINE_MS, createHandler } from "#functions/http/events";
import type { App } from "#lib/app/compose/app";
import { createLog } from "#lib/app/compose/logger";
import type { StatusUseCases, TransitionMessage } from "#lib/app/contracts";
import { ManualClock } from "#lib/core/clock";
import { signV0 } from "../../../lib/webhooks";

const NOW = 1_767_268_800_000;

/** An App over in-memory fakes of our own ports; recordUserChange never finishes. */
function slowApp(sent: TransitionMessage[]): App {
  const never = new Promise<boolean>(() => undefined);
  const useCases = { recordUserChange: () => never } as unknown as StatusUseCases;
  return {
    config: { LOG_LEVEL: "SILENT" } as App["config"],
    clock: new ManualClock(NOW),
    log: createLog({ level: "SILENT" }),
    useCases,
    oooCommands: useCases,
    admin: {} as App["admin"],
    syncQueue: { send: async () => undefined },
    transitionQueue: { send: async (m: TransitionMessage) => void sent.push(m) },
    requestSync: async () => true,
    syncSource: async () => ({ kind: "skipped", reason: "test" }),
    signingSecret: async () => "demo-signing-secret",
  };
}

describe("POST /service/events acknowledgement", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers 200 before the service's 3 s limit and queues the whole change when recording is slow", async () => {
    // Prepare
    vi.useFakeTimers();
    const sent: TransitionMessage[] = [];
    const app = slowApp(sent);
    const handler = createHandler(() => app);
    const body = JSON.stringify({
      type: "event_callback",
      team_id: "T0DEMO",
      event_id: "Ev0SLOW",
      event_time: NOW / 1000,
      event: { type: "user_change", user: { id: "U001", profile: { status_text: "" } } },
    });
    const ts = String(NOW / 1000);
    const event = {
      rawPath: "/service/events",
      headers: {
        "x-svc-request-timestamp": ts,
        "x-svc-signature": signV0("demo-signing-secret", ts, body),
      },
      requestContext: { http: { method: "POST" } },
      body,
      isBase64Encoded: false,
    };
    // Act
    const pending = handler(
      event as never,
      {} as never,
    ) as Promise<APIGatewayProxyStructuredResultV2>;
    await vi.advanceTimersByTimeAsync(ACK_DEADLINE_MS);
    const res = await pending;
    // Assess
    expect(ACK_DEADLINE_MS).toBeLessThan(3000);
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body ?? "{}")).toMatchObject({ deferred: true });
    expect(sent).toEqual([
      {
        team: "T0DEMO",
        user: "U001",
        at: NOW,
        reason: "user_change",
        change: {
          eventId: "Ev0SLOW",
          eventTime: NOW / 1000,
          key: { team: "T0DEMO", user: "U001" },
          status: { text: "", emoji: "", expiration: 0 },
        },
      },
    ]);
  });
});
