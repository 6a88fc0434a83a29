import { describe, expect, it } from "vitest";
import { api, connect, setup, startPushReceiver, T0, USER } from "./google-harness";

// events.watch, channels.stop and push messages over real HTTP. Expectations restate Google's
// push notification guide: the watch answer (kind api#channel, id, resourceId, resourceUri,
// token, expiration in ms), a `sync` message first with message number 1, then `exists` on
// every change, as a POST with no body and the X-Goog-* headers; ttl defaults to 604800 s; a
// channel ends at its expiration or when stopped; 500/502/503/504 answers are retried.

const event = (summary: string) => ({
  summary,
  start: { dateTime: "2025-03-03T10:00:00Z" },
  end: { dateTime: "2025-03-03T11:00:00Z" },
});

async function watched(opts: { ttl?: string; answer?: (n: number) => number } = {}) {
  const { emu, clock } = await setup();
  const { accessToken } = await connect(emu);
  const receiver = await startPushReceiver(opts.answer);
  const watch = (id: string, extra: Record<string, unknown> = {}) =>
    api(emu, accessToken, "/calendars/primary/events/watch", {
      method: "POST",
      body: {
        id,
        type: "web_hook",
        address: receiver.url,
        token: `tok-${id}`,
        ...(opts.ttl ? { params: { ttl: opts.ttl } } : {}),
        ...extra,
      },
    });
  return { emu, clock, accessToken, receiver, watch };
}

describe("Google emulator: watch channels and push", () => {
  it("watch answers the channel, then a sync message with the documented headers", async () => {
    const { emu, receiver, watch } = await watched();
    const r = await watch("chan-1");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ kind: "api#channel", id: "chan-1", token: "tok-chan-1" });
    expect(r.body.expiration).toBe(String(T0 + 604_800_000));
    expect(typeof r.body.resourceId).toBe("string");
    expect(String(r.body.resourceUri)).toMatch(/\/calendar\/v3\/calendars\/primary\/events/);
    await emu.control.flushPushes();
    expect(receiver.received).toHaveLength(1);
    const sync = receiver.received[0];
    expect(sync?.method).toBe("POST");
    expect(sync?.body).toBe("");
    expect(sync?.headers).toMatchObject({
      "x-goog-channel-id": "chan-1",
      "x-goog-channel-token": "tok-chan-1",
      "x-goog-channel-expiration": new Date(T0 + 604_800_000).toUTCString(),
      "x-goog-resource-id": r.body.resourceId,
      "x-goog-resource-uri": r.body.resourceUri,
      "x-goog-resource-state": "sync",
      "x-goog-message-number": "1",
    });
  });

  it("each change sends exists to every live channel of the calendar, message numbers increasing", async () => {
    const { emu, receiver, watch } = await watched();
    await watch("chan-a");
    await watch("chan-b");
    const e = emu.control.addEvent(USER, event("Planning"));
    emu.control.editEvent(USER, String(e.id), { summary: "Planning!" });
    await emu.control.flushPushes();
    const of = (id: string) =>
      receiver.received
        .filter((p) => p.headers["x-goog-channel-id"] === id)
        .map((p) => [p.headers["x-goog-resource-state"], p.headers["x-goog-message-number"]]);
    expect(of("chan-a")).toEqual([
      ["sync", "1"],
      ["exists", "2"],
      ["exists", "3"],
    ]);
    expect(of("chan-b")).toEqual([
      ["sync", "1"],
      ["exists", "2"],
      ["exists", "3"],
    ]);
  });

  it("channels.stop answers 204 and ends the channel; stopping it again is a 404", async () => {
    const { emu, receiver, watch, accessToken } = await watched();
    const ch = await watch("chan-stop");
    await emu.control.flushPushes();
    const stop = () =>
      api(emu, accessToken, "/channels/stop", {
        method: "POST",
        body: { id: "chan-stop", resourceId: ch.body.resourceId },
      });
    expect((await stop()).status).toBe(204);
    emu.control.addEvent(USER, event("After stop"));
    await emu.control.flushPushes();
    expect(receiver.received).toHaveLength(1);
    expect((await stop()).status).toBe(404);
    expect(emu.control.channels()[0]).toMatchObject({ id: "chan-stop", live: false });
  });

  it("a channel sends nothing after its expiration on the emulator's clock", async () => {
    const { emu, clock, receiver, watch } = await watched({ ttl: "60" });
    const ch = await watch("chan-ttl");
    expect(ch.body.expiration).toBe(String(T0 + 60_000));
    clock.advance(59_999);
    emu.control.addEvent(USER, event("Still live"));
    clock.advance(1);
    emu.control.addEvent(USER, event("Expired"));
    await emu.control.flushPushes();
    expect(receiver.received.map((p) => p.headers["x-goog-resource-state"])).toEqual([
      "sync",
      "exists",
    ]);
    expect(emu.control.channels()[0]?.live).toBe(false);
    // Its id may be used again once it has ended.
    expect((await watch("chan-ttl")).status).toBe(200);
  });

  it("refuses a channel id in use, a non-https address and a wrong type", async () => {
    const { watch } = await watched();
    expect((await watch("dup")).status).toBe(200);
    const dup = await watch("dup");
    expect(dup.status).toBe(400);
    const notHttps = await watch("plain", { address: "http://hooks.example/google" });
    expect(notHttps.status).toBe(400);
    expect((notHttps.body.error as { errors: { reason: string }[] }).errors[0]?.reason).toBe(
      "push.webhookUrlNotHttps",
    );
    expect((await watch("badtype", { type: "email" })).status).toBe(400);
  });

  it("retries a message answered 503, and gives up on a 404 at once", async () => {
    const { emu, receiver, watch } = await watched({
      answer: (n) => (n === 1 ? 503 : n === 3 ? 404 : 200),
    });
    await watch("chan-retry");
    await emu.control.flushPushes();
    expect(receiver.received.map((p) => p.headers["x-goog-message-number"])).toEqual(["1", "1"]);
    emu.control.addEvent(USER, event("One"));
    await emu.control.flushPushes();
    expect(receiver.received).toHaveLength(3);
    expect(emu.control.pushes().map((p) => [p.messageNumber, p.outcome, p.attempts])).toEqual([
      [1, "delivered", 2],
      [2, "failed", 1],
    ]);
  });

  it("may grant less than asked: the answer's expiration says how long, and the channel ends then", async () => {
    const { emu, clock, receiver, watch } = await watched();
    const knob = (maxS: unknown) =>
      fetch(`${emu.url}/_control/granted-lifetime`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ maxS }),
      });
    expect((await knob(0)).status).toBe(400);
    expect((await knob(90)).status).toBe(200);
    // Asked for the default 7 days: granted 90 s.
    const ch = await watch("chan-short");
    expect(ch.body.expiration).toBe(String(T0 + 90_000));
    clock.advance(90_000);
    emu.control.addEvent(USER, event("After 90 s"));
    await emu.control.flushPushes();
    expect(receiver.received.map((p) => p.headers["x-goog-resource-state"])).toEqual(["sync"]);
    expect(emu.control.channels()[0]).toMatchObject({ live: false, stopped: false });
    // Back to the default: what is asked, up to 30 days.
    expect((await knob(null)).status).toBe(200);
    expect((await watch("chan-long")).body.expiration).toBe(String(T0 + 90_000 + 604_800_000));
  });

  it("records when a channel was stopped", async () => {
    const { emu, clock, accessToken, watch } = await watched();
    const ch = await watch("chan-when");
    clock.advance(5_000);
    const stopped = await api(emu, accessToken, "/channels/stop", {
      method: "POST",
      body: { id: "chan-when", resourceId: ch.body.resourceId },
    });
    expect(stopped.status).toBe(204);
    expect(emu.control.channels()[0]).toMatchObject({ stopped: true, stoppedAt: T0 + 5_000 });
  });

  it("a silenced channel sends nothing more while it still looks live", async () => {
    const { emu, receiver, watch } = await watched();
    await watch("chan-quiet");
    await emu.control.flushPushes();
    emu.control.faults({ silenceChannel: { id: "chan-quiet" } });
    emu.control.addEvent(USER, event("Unheard"));
    await emu.control.flushPushes();
    expect(receiver.received).toHaveLength(1);
    expect(emu.control.channels()[0]).toMatchObject({ live: true, silent: true });
  });
});
