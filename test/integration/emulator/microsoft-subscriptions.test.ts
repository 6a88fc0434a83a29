import { afterEach, describe, expect, it } from "vitest";
import {
  DEMO_TENANT_ID,
  type RunningMicrosoftEmulator,
  startMicrosoftEmulator,
} from "#emulator/microsoft/server";
import { ManualClock } from "#lib/core/clock";
import { MS_CLIENT, MS_T0 as T0, MS_USER as USER } from "./microsoft-demo";
import { startGraphReceiver } from "./microsoft-receiver";

// Graph subscriptions over real HTTP, checked against the documentation: the validation
// handshake (`POST ?validationToken=`, answered 200 text/plain with the token, within 10 s)
// before 201; at most 10,080 minutes for Outlook events; PATCH renews, DELETE ends; change
// notifications carry subscriptionId, clientState, changeType, resource, resourceData,
// subscriptionExpirationDateTime and tenantId; lifecycle notifications carry lifecycleEvent.

const MINUTE = 60_000;
const CLIENT = MS_CLIENT.clientId;
const closers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((r) => r.close()));
});

async function setup(opts: { validationTimeoutMs?: number; retryDelaysMs?: number[] } = {}) {
  const clock = new ManualClock(T0);
  const emu: RunningMicrosoftEmulator = await startMicrosoftEmulator({
    clock,
    expirySweepMs: 0,
    validationTimeoutMs: opts.validationTimeoutMs ?? 10_000,
    notificationRetryDelaysMs: opts.retryDelaysMs ?? [10],
    notificationTimeoutMs: 2000,
  });
  const receiver = await startGraphReceiver();
  closers.push(emu, receiver);
  // A fresh access token per call: tests move the clock past a token's hour.
  const bearer = () =>
    (
      emu.issueTokens(CLIENT, USER, ["offline_access", "Calendars.Read"]) as {
        access_token: string;
      }
    ).access_token;
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${emu.graphBaseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer()}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const subscribe = (over: Record<string, unknown> = {}) =>
    call("POST", "/subscriptions", {
      changeType: "created,updated,deleted",
      notificationUrl: receiver.notificationUrl,
      lifecycleNotificationUrl: receiver.lifecycleUrl,
      resource: "me/events",
      expirationDateTime: new Date(T0 + 3 * 24 * 60 * MINUTE).toISOString(),
      clientState: "secret-state",
      ...over,
    });
  return { emu, clock, receiver, call, subscribe };
}

describe("Microsoft Graph emulator: subscriptions", () => {
  it("validates both endpoints before answering 201 with the subscription", async () => {
    const { receiver, subscribe } = await setup();
    const res = await subscribe();
    expect(res.status).toBe(201);
    const sub = (await res.json()) as Record<string, unknown>;
    expect(sub.resource).toBe("me/events");
    expect(sub.changeType).toBe("created,updated,deleted");
    expect(sub.clientState).toBe("secret-state");
    expect(Date.parse(String(sub.expirationDateTime))).toBe(T0 + 3 * 24 * 60 * MINUTE);
    const handshakes = receiver.received.filter((r) => r.query.has("validationToken"));
    expect(handshakes.map((h) => h.path).sort()).toEqual([
      "/hooks/graph",
      "/hooks/graph/lifecycle",
    ]);
    expect(handshakes.every((h) => h.headers["content-type"]?.startsWith("text/plain"))).toBe(true);
  });

  it("refuses an expiration past 10,080 minutes, and accepts exactly 10,080", async () => {
    const { subscribe } = await setup();
    const over = await subscribe({
      expirationDateTime: new Date(T0 + 10_090 * MINUTE).toISOString(),
    });
    expect(over.status).toBe(400);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBeTypeOf("string");
    const max = await subscribe({
      expirationDateTime: new Date(T0 + 10_080 * MINUTE).toISOString(),
    });
    expect(max.status).toBe(201);
  });

  it("fails the subscription when the handshake is wrong, not text, or later than the limit", async () => {
    const { receiver, subscribe } = await setup({ validationTimeoutMs: 200 });
    for (const validation of ["wrong", "json", "slow"] as const) {
      receiver.behaviour.validation = validation;
      receiver.behaviour.slowMs = 1000;
      const res = await subscribe();
      expect(res.status, validation).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
        "ValidationError",
      );
    }
  });

  it("an edit notifies with Graph's change notification fields", async () => {
    const { emu, receiver, subscribe } = await setup();
    const sub = (await (await subscribe()).json()) as { id: string };
    const id = emu.createEvent(USER, { subject: "x", start: T0 + MINUTE, end: T0 + 31 * MINUTE });
    await emu.flushNotifications();
    const [note] = receiver.notifications()[0]?.value ?? [];
    expect(note).toMatchObject({
      subscriptionId: sub.id,
      clientState: "secret-state",
      changeType: "created",
      resource: `Users/${USER}/Events/${id}`,
      tenantId: DEMO_TENANT_ID,
      resourceData: { "@odata.type": "#Microsoft.Graph.Event", id },
    });
    expect(Date.parse(String(note?.subscriptionExpirationDateTime))).toBe(
      T0 + 3 * 24 * 60 * MINUTE,
    );
  });

  it("PATCH renews, DELETE ends, and an unrenewed subscription expires by the clock", async () => {
    const { emu, clock, receiver, call, subscribe } = await setup();
    const sub = (await (await subscribe()).json()) as { id: string };
    const later = new Date(T0 + 5 * 24 * 60 * MINUTE).toISOString();
    const patched = await call("PATCH", `/subscriptions/${sub.id}`, { expirationDateTime: later });
    expect(patched.status).toBe(200);
    clock.advance(4 * 24 * 60 * MINUTE);
    expect((await call("GET", `/subscriptions/${sub.id}`)).status).toBe(200);
    clock.advance(2 * 24 * 60 * MINUTE);
    expect((await call("GET", `/subscriptions/${sub.id}`)).status).toBe(404);
    emu.createEvent(USER, { subject: "x", start: clock.now(), end: clock.now() + MINUTE });
    await emu.flushNotifications();
    expect(receiver.notifications()).toEqual([]);

    const second = (await (
      await subscribe({ expirationDateTime: new Date(clock.now() + MINUTE * 60).toISOString() })
    ).json()) as { id: string };
    expect((await call("DELETE", `/subscriptions/${second.id}`)).status).toBe(204);
    expect((await call("DELETE", `/subscriptions/${second.id}`)).status).toBe(404);
  });

  it("lifecycle: subscriptionRemoved; reauthorizationRequired holds changes, then missed after the renewal", async () => {
    const { emu, receiver, call, subscribe } = await setup();
    const sub = (await (await subscribe()).json()) as { id: string };
    emu.requireReauthorization(sub.id);
    emu.createEvent(USER, { subject: "held", start: T0, end: T0 + MINUTE });
    await emu.flushNotifications();
    expect(receiver.notifications()).toEqual([]);
    await call("PATCH", `/subscriptions/${sub.id}`, {
      expirationDateTime: new Date(T0 + 24 * 60 * MINUTE).toISOString(),
    });
    await emu.flushNotifications();
    expect(emu.removeSubscription(sub.id)).toBe(true);
    await emu.flushNotifications();
    const events = receiver
      .notifications("/hooks/graph/lifecycle")
      .flatMap((b) => b.value.map((n) => n.lifecycleEvent));
    expect(events).toEqual(["reauthorizationRequired", "missed", "subscriptionRemoved"]);
    expect(receiver.notifications("/hooks/graph/lifecycle")[0]?.value[0]).toMatchObject({
      subscriptionId: sub.id,
      clientState: "secret-state",
      tenantId: DEMO_TENANT_ID,
    });
  });

  it("a silenced subscription stays listed and never notifies; a refused notification is retried, then missed", async () => {
    const { emu, receiver, call, subscribe } = await setup({ retryDelaysMs: [10, 10] });
    const sub = (await (await subscribe()).json()) as { id: string };
    emu.silence(sub.id);
    emu.createEvent(USER, { subject: "quiet", start: T0, end: T0 + MINUTE });
    await emu.flushNotifications();
    expect(receiver.notifications()).toEqual([]);
    expect((await call("GET", `/subscriptions/${sub.id}`)).status).toBe(200);

    const other = (await (await subscribe()).json()) as { id: string };
    receiver.behaviour.status = 500;
    emu.createEvent(USER, { subject: "refused", start: T0, end: T0 + MINUTE });
    await emu.flushNotifications();
    const attempts = emu
      .deliveries()
      .filter((d) => d.subscriptionId === other.id && d.kind === "change");
    expect(attempts.map((d) => d.outcome)).toEqual(["failed", "failed", "given_up"]);
    const lifecycle = receiver.notifications("/hooks/graph/lifecycle").flatMap((b) => b.value);
    expect(lifecycle.map((n) => [n.subscriptionId, n.lifecycleEvent])).toEqual([
      [other.id, "missed"],
    ]);
  });

  it("the control surface edits events over HTTP and the edit notifies", async () => {
    const { emu, receiver, subscribe } = await setup();
    await subscribe();
    const created = await fetch(`${emu.url}/_control/users/${USER}/events`, {
      method: "POST",
      body: JSON.stringify({
        subject: "c",
        start: new Date(T0).toISOString(),
        end: new Date(T0 + MINUTE).toISOString(),
      }),
    });
    const { id } = (await created.json()) as { id: string };
    await fetch(`${emu.url}/_control/users/${USER}/events/${id}`, {
      method: "PATCH",
      body: JSON.stringify({ isCancelled: true }),
    });
    await fetch(`${emu.url}/_control/users/${USER}/events/${id}`, { method: "DELETE" });
    const bad = await fetch(`${emu.url}/_control/users/${USER}/events`, {
      method: "POST",
      body: JSON.stringify({ showAs: "away" }),
    });
    expect(bad.status).toBe(400);
    await emu.flushNotifications();
    expect(receiver.notifications().map((b) => b.value[0]?.changeType)).toEqual([
      "created",
      "updated",
      "deleted",
    ]);
  });
  it("may grant less than asked: POST and PATCH answer the shorter expiration, which holds", async () => {
    const { emu, clock, call, subscribe } = await setup();
    const knob = (body: unknown) =>
      fetch(`${emu.url}/_control/granted-lifetime`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await knob({ maxS: -1 })).status).toBe(400);
    expect((await knob({ maxS: 90, more: 1 })).status).toBe(400);
    expect((await knob({ maxS: 90 })).status).toBe(200);
    // Asked for 3 days: granted 90 s.
    const created = await subscribe();
    expect(created.status).toBe(201);
    const sub = (await created.json()) as { id: string; expirationDateTime: string };
    expect(Date.parse(sub.expirationDateTime)).toBe(T0 + 90_000);
    clock.advance(60_000);
    const renewed = await call("PATCH", `/subscriptions/${sub.id}`, {
      expirationDateTime: new Date(T0 + 24 * 60 * MINUTE).toISOString(),
    });
    expect(renewed.status).toBe(200);
    const after = (await renewed.json()) as { expirationDateTime: string };
    expect(Date.parse(after.expirationDateTime)).toBe(T0 + 150_000);
    // Still refused past the documented maximum, knob or not.
    const tooLong = await call("PATCH", `/subscriptions/${sub.id}`, {
      expirationDateTime: new Date(T0 + 10_090 * MINUTE).toISOString(),
    });
    expect(tooLong.status).toBe(400);
    clock.advance(90_000);
    expect((await call("GET", `/subscriptions/${sub.id}`)).status).toBe(404);
    expect((await knob({ maxS: null })).status).toBe(200);
    const asked = (await (await subscribe()).json()) as { expirationDateTime: string };
    expect(Date.parse(asked.expirationDateTime)).toBe(T0 + 3 * 24 * 60 * MINUTE);
  });
});
