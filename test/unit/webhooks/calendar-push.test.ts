import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { SyncMessage } from "../../../lib/app/contracts";
import { ManualClock } from "../../../lib/core/clock";
import {
  handleCalendarPush,
  type WebhookDeps,
  WebhookError,
  type WebhookRequest,
} from "../../../lib/webhooks";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const fixtureBody = (name: string): string =>
  (
    JSON.parse(readFileSync(path.join(repoRoot, "test/fixtures/events", name), "utf8")) as {
      body: string;
    }
  ).body;

/** In-memory fakes of our own ports: one Graph subscription, a log and a sync queue. */
function fakes() {
  const logged: Array<{ level: string; message: string; data?: Record<string, unknown> }> = [];
  const syncs: SyncMessage[] = [];
  const record = (level: string) => (message: string, data?: Record<string, unknown>) =>
    void logged.push({ level, message, ...(data ? { data } : {}) });
  const deps = {
    clock: new ManualClock(Date.UTC(2026, 0, 1, 12)),
    log: {
      debug: record("debug"),
      info: record("info"),
      warn: record("warn"),
      error: record("error"),
      appendKeys: () => undefined,
    },
    signingSecret: async () => "unused",
    useCases: {} as WebhookDeps["useCases"],
    admin: {
      findChannel: async (id: string) =>
        id === "sub-graph-1"
          ? { team: "T0DEMO", user: "U001", sourceId: "outlook", secret: "graph-client-state" }
          : undefined,
      userZone: async () => "UTC",
    },
    transitionQueue: { send: async () => undefined },
    requestSync: async (msg: SyncMessage) => {
      syncs.push(msg);
      return true;
    },
  } satisfies WebhookDeps;
  return { deps, logged, syncs };
}

const graphRequest = (rawBody: string): WebhookRequest => ({
  path: "/hooks/graph",
  headers: {},
  query: {},
  params: {},
  rawBody,
});

describe("handleCalendarPush for Microsoft Graph", () => {
  it("logs that a subscription needing reauthorization must be renewed, and re-syncs now", async () => {
    // Prepare
    const { deps, logged, syncs } = fakes();
    // Act
    const reply = await handleCalendarPush(
      graphRequest(fixtureBody("hooks-graph-lifecycle.json")),
      deps,
    );
    // Assess
    expect(reply).toEqual({ status: 202, json: { ok: true, queued: 1 } });
    expect(syncs).toEqual([{ team: "T0DEMO", user: "U001", sourceId: "outlook", reason: "push" }]);
    expect(logged).toContainEqual({
      level: "warn",
      message: "graph lifecycle notification",
      data: expect.objectContaining({
        sourceId: "outlook",
        lifecycleEvent: "reauthorizationRequired",
        needsRenewal: true,
      }),
    });
    expect(JSON.stringify(logged)).not.toContain("graph-client-state");
  });

  it("refuses a body that is not JSON with a 400-coded error naming no field", async () => {
    // Prepare
    const { deps } = fakes();
    // Act
    const failure = handleCalendarPush(graphRequest("{nope"), deps);
    // Assess
    await expect(failure).rejects.toBeInstanceOf(WebhookError);
    await expect(failure).rejects.toMatchObject({ code: "bad_request", pointer: "" });
  });

  it("answers a hook path it does not serve with a not_found error", async () => {
    const { deps } = fakes();
    await expect(
      handleCalendarPush({ ...graphRequest(""), path: "/hooks/other" }, deps),
    ).rejects.toMatchObject({ code: "not_found" });
  });
});
