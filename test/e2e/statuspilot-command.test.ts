import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadWorkspace } from "#emulator/server";
import { systemClock } from "#lib/app/compose/system-clock";
import { signV0 } from "../../lib/webhooks";
import {
  advance,
  advanceTo,
  type E2e,
  event,
  liveLog,
  nowOf,
  profileOf,
  STATUSPILOT_APP,
  setCalls,
  startE2e,
  T0,
  TEAM,
  tokensRevokedEnvelope,
} from "./support";

/**
 * `/statuspilot` over the local stack, against a service that answers each call after 2 s: the
 * service gives a command 3 s, so every answer comes from our own table and anything that
 * calls the service follows from the transition queue. Then `tokens_revoked`, signed as the
 * service signs events: the user is stopped, and `status` says so.
 */

const S = 1000;
const LATENCY_MS = 2_000;
const base = Math.ceil(T0 / S) * S;
const review = event("review", "Review", base + 60 * S, base + 3_600 * S);
const standup = event("standup", "Stand-up", base + 7_200 * S, base + 9_000 * S);
const retro = event("retro", "Retro", base + 10_800 * S, base + 12_600 * S);
const repoRoot = path.resolve(fileURLToPath(import.meta.url), "../../..");
const signingSecret =
  loadWorkspace(path.join(repoRoot, "emulator/demo-workspace.json")).apps.find(
    (a) => a.id === STATUSPILOT_APP,
  )?.signing_secret ?? "";

let e: E2e;
beforeAll(async () => {
  e = await startE2e({ U001: { tz: "Europe/Berlin", events: [review, standup, retro] } });
});
afterAll(() => e?.close());

async function setFaults(spec: string): Promise<void> {
  const res = await fetch(`${e.emulatorUrl}/_emulator/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ spec }),
  });
  if (!res.ok) throw new Error(`faults answered ${res.status}`);
}

/** POSTs `body` signed as the service signs it (or with `signature` instead). */
async function signedPost(
  route: string,
  body: string,
  type: string,
  signature?: string,
): Promise<Response> {
  const ts = Math.floor((await nowOf(e)) / S);
  return fetch(`${e.url}${route}`, {
    method: "POST",
    headers: {
      "content-type": type,
      "x-svc-request-timestamp": String(ts),
      "x-svc-signature": signature ?? signV0(signingSecret, ts, body),
    },
    body,
  });
}

/** Types `/statuspilot <text>` as `user`; returns the reply and its wall time. */
async function statuspilot(
  text: string,
  user = "U001",
): Promise<{ status: number; text: string; type: unknown; tookMs: number }> {
  const body = new URLSearchParams({ team_id: TEAM, user_id: user, command: "/statuspilot", text });
  const started = systemClock.now();
  const res = await signedPost(
    "/service/commands/statuspilot",
    body.toString(),
    "application/x-www-form-urlencoded",
  );
  const reply = (await res.json()) as { text: string; response_type: unknown };
  return {
    status: res.status,
    text: reply.text,
    type: reply.response_type,
    tookMs: systemClock.now() - started,
  };
}

describe("/statuspilot with the service answering each call after 2 s", () => {
  it("answers status from the table: mode, connection, what shows now, the next change, each calendar", async () => {
    // Prepare
    await advanceTo(e, review.start + 5 * S);
    expect((await profileOf(e, "U001")).status_text).not.toBe("");
    await setFaults(`latency_ms=${LATENCY_MS}`);
    // Act
    const reply = await statuspilot("status");
    await setFaults("");
    // Assess
    expect(reply).toMatchObject({ status: 200, type: "ephemeral" });
    expect(reply.tookMs).toBeLessThan(3 * S);
    expect(reply.text).toContain("Mode: automatic");
    expect(reply.text).toContain("Connection: connected");
    expect(reply.text).toMatch(/Now: \S+ "[^"]+"/);
    // The review ends at base + 3600 s: 12:59:01 in Berlin (UTC+1 in March).
    expect(reply.text).toContain("until 2025-03-10 12:59 (Europe/Berlin)");
    expect(reply.text).toMatch(/• cal1 \(ics\): read 2025-03-10 \d\d:\d\d/);
  });

  it("pauses at once, and nothing is written while paused", async () => {
    // Prepare
    await setFaults(`latency_ms=${LATENCY_MS}`);
    const calls = (await setCalls(e, "U001")).length;
    // Act
    const reply = await statuspilot("pause");
    await setFaults("");
    await advanceTo(e, standup.start + 5 * S);
    // Assess
    expect(reply).toMatchObject({ status: 200, type: "ephemeral" });
    expect(reply.text).toMatch(/^Paused\./);
    expect(reply.tookMs).toBeLessThan(3 * S);
    expect(await setCalls(e, "U001")).toHaveLength(calls);
    expect((await profileOf(e, "U001")).status_text).toBe("");
    expect((await statuspilot("status")).text).toContain("Mode: paused");
    expect((await statuspilot("pause")).text).toBe("Already paused.");
    // The live log says why the stand-up's status was not written (issue 28).
    expect(await liveLog(e)).toContainEqual(
      expect.stringMatching(/^\d\d:\d\d:\d\d U001 paused: leaving the status alone$/),
    );
    expect((await liveLog(e)).join("\n")).not.toContain("user set their own status");
  });

  it("resumes at once, and the meeting's status follows from the queue", async () => {
    // Prepare
    await setFaults(`latency_ms=${LATENCY_MS}`);
    const calls = (await setCalls(e, "U001")).length;
    // Act
    const reply = await statuspilot("resume");
    const showingAfterReply = await profileOf(e, "U001");
    await advance(e, 0);
    await setFaults("");
    // Assess
    expect(reply.text).toMatch(/^Resumed/);
    expect(reply.tookMs).toBeLessThan(3 * S);
    expect(showingAfterReply.status_text).toBe("");
    expect((await profileOf(e, "U001")).status_text).not.toBe("");
    expect(await setCalls(e, "U001")).toHaveLength(calls + 1);
    expect((await statuspilot("resume")).text).toBe("Already running.");
  });

  it("links the settings page, and answers help, nothing and anything else with the help", async () => {
    const settings = await statuspilot("settings");
    expect(settings.text).toMatch(/^Your settings: http:\/\/127\.0\.0\.1:\d+\/settings$/);
    const help = await statuspilot("help");
    expect(help.text).toContain("`/statuspilot pause`");
    expect(help.text).toContain("`/statuspilot settings`");
    expect((await statuspilot("")).text).toBe(help.text);
    expect((await statuspilot("frobnicate now")).text).toBe(help.text);
  });

  it("tells someone Statuspilot does not know that they are not set up", async () => {
    const reply = await statuspilot("status", "U0NOBODY");
    expect(reply).toMatchObject({ status: 200, type: "ephemeral" });
    expect(reply.text).toMatch(/not set up/);
  });

  it("refuses a bad signature with 401 and pauses nobody", async () => {
    // Act
    const body = new URLSearchParams({
      team_id: TEAM,
      user_id: "U001",
      command: "/statuspilot",
      text: "pause",
    }).toString();
    const res = await signedPost(
      "/service/commands/statuspilot",
      body,
      "application/x-www-form-urlencoded",
      `v0=${"0".repeat(64)}`,
    );
    // Assess
    expect(res.status).toBe(401);
    expect((await statuspilot("status")).text).toContain("Mode: automatic");
  });
});

describe("tokens_revoked", () => {
  it("stops the user with no further call, and /statuspilot status says to reconnect", async () => {
    // Prepare: the stand-up's status shows; the retro, a status to write, is ahead
    const calls = (await setCalls(e, "U001")).length;
    const envelope = JSON.stringify(tokensRevokedEnvelope("U001", "Ev0REVOKED1", await nowOf(e)));
    // Act
    const res = await signedPost("/service/events", envelope, "application/json");
    await advanceTo(e, retro.start + 5 * S);
    const paused = await statuspilot("pause");
    const resumed = await statuspilot("resume");
    await advance(e, 5 * S);
    // Assess
    expect(res.status).toBe(200);
    expect(await setCalls(e, "U001")).toHaveLength(calls);
    const status = await statuspilot("status");
    expect(status.text).toMatch(
      /Connection: token revoked — reconnect at http:\/\/127\.0\.0\.1:\d+\/settings/,
    );
    expect(status.text).not.toContain("Next change");
    expect([paused.status, resumed.status]).toEqual([200, 200]);
    expect(await setCalls(e, "U001")).toHaveLength(calls);
    expect(await liveLog(e)).toContainEqual(
      expect.stringMatching(/^\d\d:\d\d:\d\d U001 token revoked: reconnect$/),
    );
  });
});

describe("app_uninstalled", () => {
  it("stops the team's users and /statuspilot status says when their data goes", async () => {
    // Prepare
    const now = await nowOf(e);
    const envelope = JSON.stringify({
      token: "unused",
      team_id: TEAM,
      api_app_id: STATUSPILOT_APP,
      type: "event_callback",
      event_id: "Ev0UNINSTALL1",
      event_time: Math.floor(now / S),
      event: { type: "app_uninstalled" },
    });
    // Act
    const res = await signedPost("/service/events", envelope, "application/json");
    const again = await signedPost("/service/events", envelope, "application/json");
    // Assess: 7 days after now (2025-03-10 13:59 in Berlin), once per event id
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, stopped: 1 });
    expect(await again.json()).toEqual({ ok: true, duplicate: true });
    const status = await statuspilot("status");
    expect(status.text).toContain(
      "the app was removed from this workspace — reinstall at http://127.0.0.1:",
    );
    expect(status.text).toMatch(
      /Your data is deleted on 2025-03-17 \d\d:\d\d \(Europe\/Berlin\) unless it is reinstalled\./,
    );
  });
});
