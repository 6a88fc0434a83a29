import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "#emulator/server";
import type { UseCases } from "#lib/app/compose/use-cases";
import { ManualClock } from "#lib/core/clock";
import { silentLog } from "#lib/core/ports";
import { ServiceClient } from "#lib/service/client";
import { handleServiceEvent } from "#lib/webhooks/handle-service-event";
import { RecentIds } from "#lib/webhooks/service-events";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";
import { conformanceWorkspace } from "../service/harness";
import { addMember, emulatorPilot } from "./emulator-harness";
import { block, MemoryQueue, MIN, T0 } from "./harness";

/*
 * The lost clear, end to end: the emulator delivers signed user_change events over HTTP to a
 * receiver that runs the real events use case (signature, parsing, recordUserChange) against
 * the reconciler on dynalite; `drop_event=1` makes the service drop the user's clear. Then
 * `standing: "restore"`: the restore at a meeting's end, and a dropped set it must not overwrite.
 */

const SIGNING_SECRET = "conformance-signing-secret";
const clock = new ManualClock(T0);
let dynamo: LocalDynamo;
let emulator: RunningEmulator;
let receiver: Server;
let pilot: UseCases;

/** POST /service/events, as the HTTP handler would run it. */
function startEventReceiver(): Promise<string> {
  const recent = new RecentIds();
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string") headers[name.toLowerCase()] = value;
      }
      try {
        const reply = await handleServiceEvent(
          {
            path: "/service/events",
            headers,
            query: {},
            params: {},
            rawBody: Buffer.concat(chunks).toString("utf8"),
          },
          {
            clock,
            log: { ...silentLog, appendKeys: () => {} },
            signingSecret: async () => SIGNING_SECRET,
            useCases: pilot,
            admin: { findChannel: async () => undefined, userZone: (key) => pilot.userZone(key) },
            transitionQueue: new MemoryQueue(),
            requestSync: async () => true,
          },
          { recent },
        );
        res.writeHead(reply.status, { "content-type": "application/json" });
        res.end(JSON.stringify("json" in reply ? reply.json : reply.text));
      } catch {
        res.writeHead(500);
        res.end();
      }
    });
  });
  return new Promise((resolve) => {
    receiver.listen(0, "127.0.0.1", () => {
      const { port } = receiver.address() as AddressInfo;
      resolve(`http://127.0.0.1:${port}/service/events`);
    });
  });
}

beforeAll(async () => {
  const requestUrl = await startEventReceiver();
  dynamo = await startDynalite();
  emulator = await startEmulator({
    workspace: conformanceWorkspace((ws) => {
      const main = ws.apps.find((a) => a.id === "A0MAIN");
      if (main !== undefined) {
        main.manifest.settings = {
          event_subscriptions: { request_url: requestUrl, user_events: ["user_change"] },
        };
      }
    }),
    clock,
    port: 0,
    expirySweepMs: 0,
  });
  pilot = emulatorPilot({ dynamo, emulator, clock });
});
afterAll(async () => {
  await emulator?.close();
  await dynamo?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

const TOKEN = "xoxp-member-0001";
/** The user, in the service's own client. */
const user = () => new ServiceClient({ baseUrl: emulator.apiBase, clock, budget: false });
const shown = (id: string) => {
  const p = emulator.state().profiles[id];
  return [p?.status_text, p?.status_emoji, p?.status_expiration];
};
const lastSeq = () => emulator.calls().at(-1)?.seq ?? 0;

describe("manual statuses without expiry, user_change delivered over HTTP", () => {
  it("re-checks one whose clear's user_change was dropped at the next block's start, and sets the block", async () => {
    // Prepare: the meeting shows; at 09:02 the user sets a status that does not expire, and
    // its user_change reaches us.
    const key = await addMember(pilot, TOKEN);
    const meeting = block(T0 - MIN, T0 + 10 * MIN);
    const review = block(T0 + 30 * MIN, T0 + 60 * MIN, "focus");
    await pilot.applyTimeline(key, [meeting, review], { sourceId: "work" });
    await emulator.flushEvents();
    clock.set(T0 + 2 * MIN);
    await user().setProfile({
      token: TOKEN,
      profile: { status_text: "Walking the dog", status_emoji: ":dog:", status_expiration: 0 },
    });
    await emulator.flushEvents();
    const believed = (await pilot.getStatusView(key))?.override;
    // The user clears it at 09:05; the service drops that user_change.
    emulator.setFaults("drop_event=1");
    clock.set(T0 + 5 * MIN);
    await user().setStatus({
      token: TOKEN,
      budgetUser: key.user,
      status: { text: "", emoji: "", expiration: 0 },
    });
    await emulator.flushEvents();
    emulator.setFaults("");
    const scheduled = await pilot.getStatusView(key);
    const deliveries = emulator.state().deliveries.map((d) => d.outcome);
    const before = lastSeq();
    // Act: the focus block starts; its transition reconciles the user.
    clock.set(review.start);
    const outcome = await pilot.reconcileUser(key);
    // Assess
    expect(believed?.status).toEqual({ text: "Walking the dog", emoji: ":dog:", expiration: 0 });
    expect(deliveries).toEqual(["delivered", "delivered", "dropped"]);
    expect(scheduled?.override?.status.text).toBe("Walking the dog");
    expect(scheduled?.nextTransitionAt).toBe(review.start);
    expect(outcome.kind).toBe("set");
    expect(shown("U0MEMBER")).toEqual(["Focus time", ":headphones:", review.end / 1000]);
    expect(
      emulator
        .calls()
        .filter((c) => c.seq > before)
        .map((c) => c.method),
    ).toEqual(["users.profile.get", "users.profile.set"]);
    expect((await pilot.getStatusView(key))?.override).toBeUndefined();
  });

  it("takes a status set without status_expiration as one that never expires, and leaves it at the next block", async () => {
    // Prepare: our meeting status (expiring at 09:10) shows; the user replaces it, naming no
    // expiration, as the chat client does. The service does not carry our expiration over.
    clock.set(T0 + 1000 * MIN);
    const start = clock.now();
    const key = { team: "T0CONF", user: "U0MEMBER2" };
    await pilot.upsertUser({
      key,
      tz: "Europe/Berlin",
      token: "xoxp-member2-0001",
      sources: [{ id: "work", url: "https://cal.example/work2.ics", kind: "ics" }],
      mode: "auto",
    });
    const meeting = block(start - MIN, start + 10 * MIN);
    const review = block(start + 30 * MIN, start + 60 * MIN, "focus");
    await pilot.applyTimeline(key, [meeting, review], { sourceId: "work" });
    clock.set(start + 2 * MIN);
    await user().setProfile({
      token: "xoxp-member2-0001",
      profile: { status_text: "Heads down", status_emoji: ":headphones:" },
    });
    await emulator.flushEvents();
    const view = await pilot.getStatusView(key);
    const before = lastSeq();
    // Act
    clock.set(review.start);
    const outcome = await pilot.reconcileUser(key);
    // Assess: no wake at 09:10 for an override end; one read at the block's start finds it.
    expect(view?.override?.status).toEqual({
      text: "Heads down",
      emoji: ":headphones:",
      expiration: 0,
    });
    expect(view?.nextTransitionAt).toBe(review.start);
    expect(outcome).toEqual({ kind: "leave", reason: "manual override" });
    expect(shown("U0MEMBER2")).toEqual(["Heads down", ":headphones:", 0]);
    expect(
      emulator
        .calls()
        .filter((c) => c.seq > before)
        .map((c) => c.method),
    ).toEqual(["users.profile.get"]);
  });
});

describe("standing: restore, user_change delivered over HTTP", () => {
  const key = { team: "T0CONF", user: "U0PRIMARY" };
  const token = "xoxp-primary-0001";
  const remote = { status_text: "Working remotely", status_emoji: ":house_with_garden:" };
  const methodsSince = (seq: number) =>
    emulator
      .calls()
      .filter((c) => c.seq > seq)
      .map((c) => c.method);

  /** The person's own status, set with no expiry, then a meeting 10 minutes later. */
  async function meetingOverOwnStatus(start: number) {
    clock.set(start);
    await pilot.upsertUser({
      key,
      tz: "Europe/Berlin",
      token,
      sources: [{ id: "work", url: `https://cal.example/primary-${start}.ics`, kind: "ics" }],
      mode: "auto",
      rules: { standing: "restore" },
    });
    await user().setProfile({ token, profile: { ...remote, status_expiration: 0 } });
    await emulator.flushEvents();
    const meeting = block(start + 10 * MIN, start + 40 * MIN);
    await pilot.applyTimeline(key, [meeting], { sourceId: "work" });
    clock.set(meeting.start);
    const set = await pilot.reconcileUser(key);
    await emulator.flushEvents();
    return { meeting, set };
  }

  it("shows the meeting over the person's status and sets it back at the meeting's end", async () => {
    // Prepare
    const { meeting, set } = await meetingOverOwnStatus(T0 + 2000 * MIN);
    const during = shown("U0PRIMARY");
    const wake = (await pilot.getStatusView(key))?.nextTransitionAt;
    const before = lastSeq();
    // Act: the wake-up at the meeting's end.
    clock.set(meeting.end);
    const restore = await pilot.reconcileUser(key);
    // Assess
    expect(set.kind).toBe("set");
    expect(during).toEqual(["In a meeting", ":spiral_calendar_pad:", meeting.end / 1000]);
    expect(wake).toBe(meeting.end);
    expect(restore.kind).toBe("set");
    expect(shown("U0PRIMARY")).toEqual([remote.status_text, remote.status_emoji, 0]);
    expect(methodsSince(before)).toEqual(["users.profile.get", "users.profile.set"]);
  });

  it("leaves a status set during the meeting whose user_change was dropped: the restore's read finds it", async () => {
    // Prepare: during the meeting the person sets their own; the service drops its event.
    const { meeting } = await meetingOverOwnStatus(T0 + 3000 * MIN);
    emulator.setFaults("drop_event=1");
    clock.set(meeting.start + 5 * MIN);
    await user().setProfile({
      token,
      profile: { status_text: "Lunch", status_emoji: ":sandwich:", status_expiration: 0 },
    });
    await emulator.flushEvents();
    emulator.setFaults("");
    const before = lastSeq();
    // Act
    clock.set(meeting.end);
    const outcome = await pilot.reconcileUser(key);
    // Assess: read, nothing written over it.
    expect(outcome.kind).not.toBe("set");
    expect(shown("U0PRIMARY")).toEqual(["Lunch", ":sandwich:", 0]);
    expect(methodsSince(before)).toEqual(["users.profile.get"]);
  });
});
