import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadWorkspace } from "#emulator/server";
import { systemClock } from "#lib/app/compose/system-clock";
import { signV0 } from "../../lib/webhooks";
import {
  advance,
  type E2e,
  nowOf,
  profileOf,
  STATUSPILOT_APP,
  setCalls,
  startE2e,
  TEAM,
} from "./support";

/**
 * The `/ooo` slash command against a slow service: the service gives a command 3 s to be
 * answered, so the reply must not wait on the status update, which follows from the queue.
 */

const S = 1000;
/** Each service call waits this long: a read and a write already outlast the 3 s window. */
const LATENCY_MS = 2_000;
const repoRoot = path.resolve(fileURLToPath(import.meta.url), "../../..");
const signingSecret =
  loadWorkspace(path.join(repoRoot, "emulator/demo-workspace.json")).apps.find(
    (a) => a.id === STATUSPILOT_APP,
  )?.signing_secret ?? "";

let e: E2e;
beforeAll(async () => {
  e = await startE2e({ U001: { tz: "Europe/Berlin", events: [] } });
});
afterAll(() => e?.close());

/** The emulator's faults, over HTTP ("" turns them off). */
async function setFaults(spec: string): Promise<void> {
  const res = await fetch(`${e.emulatorUrl}/_emulator/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ spec }),
  });
  if (!res.ok) throw new Error(`faults answered ${res.status}`);
}

/** Types `/ooo <text>` as U001, signed as the service signs it; returns the reply and its wall time. */
async function ooo(text: string): Promise<{ status: number; text: string; tookMs: number }> {
  const body = new URLSearchParams({ team_id: TEAM, user_id: "U001", command: "/ooo", text });
  const ts = Math.floor((await nowOf(e)) / S);
  const started = systemClock.now();
  const res = await fetch(`${e.url}/service/commands/ooo`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-svc-request-timestamp": String(ts),
      "x-svc-signature": signV0(signingSecret, ts, body.toString()),
    },
    body: body.toString(),
  });
  const reply = (await res.json()) as { text: string };
  return { status: res.status, text: reply.text, tookMs: systemClock.now() - started };
}

/** The ids of U001's scheduled out-of-office, over the admin API. */
async function scheduledIds(): Promise<string[]> {
  const res = await fetch(`${e.url}/admin/users/${TEAM}/U001/ooo`, {
    headers: { "x-api-key": e.adminApiKey },
  });
  const { entries } = (await res.json()) as { entries: Array<{ id: string }> };
  return entries.map((entry) => entry.id);
}

describe("/ooo with the service answering each call after 2 s", () => {
  it("acknowledges a schedule at once, and the status follows from the queue", async () => {
    // Prepare
    await setFaults(`latency_ms=${LATENCY_MS}`);
    // Act
    const reply = await ooo("until 2025-03-12 Offsite");
    const before = await profileOf(e, "U001");
    await setFaults("");
    await advance(e, 0);
    // Assess
    console.log(`e2e: /ooo schedule answered in ${reply.tookMs} ms with a 2 s service`);
    expect(reply.status).toBe(200);
    expect(reply.text).toMatch(/^Scheduled (\S+): .* "Offsite"$/);
    expect(reply.tookMs).toBeLessThan(3 * S);
    expect(before.status_text).toBe("");
    expect((await profileOf(e, "U001")).status_text).toMatch(/^Offsite/);
    expect(await scheduledIds()).toEqual([/^Scheduled (\S+):/.exec(reply.text)?.[1]]);
  });

  it("acknowledges a cancel at once, and the clear still happens afterwards", async () => {
    // Prepare
    const [id] = await scheduledIds();
    await setFaults(`latency_ms=${LATENCY_MS}`);
    const callsBefore = (await setCalls(e, "U001")).length;
    // Act
    const reply = await ooo(`cancel ${id}`);
    const showingAfterReply = await profileOf(e, "U001");
    await advance(e, 0);
    // Assess
    console.log(`e2e: /ooo cancel answered in ${reply.tookMs} ms with a 2 s service`);
    expect(reply).toMatchObject({ status: 200, text: `Cancelled ${id}.` });
    expect(reply.tookMs).toBeLessThan(3 * S);
    expect(showingAfterReply.status_text).toMatch(/^Offsite/);
    expect(await profileOf(e, "U001")).toMatchObject({ status_text: "", status_emoji: "" });
    expect(await setCalls(e, "U001")).toHaveLength(callsBefore + 1);
    await setFaults("");
  });
});
