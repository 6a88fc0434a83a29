import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { verifyV0 } from "#lib/http/signature";
import type { Received } from "../service/harness";
import {
  APP,
  actions,
  BOT,
  button,
  call,
  closeAll,
  control,
  home,
  type Json,
  PERSON,
  SECRET,
  section,
  startHome,
  state,
  T0S,
} from "./home-harness";

// app_home_opened and block_actions over HTTP, checked with the product's own v0 verifier (the
// one the events route uses) as the independent judge of the signature. Payload shapes are the
// platform's public reference for the app_home_opened event and the block_actions payload.

afterEach(closeAll);

/** Verifies a delivery as the app would, at `nowMs`; throws when the signature is wrong. */
function verify(delivery: Received | undefined, nowMs: number): string {
  if (!delivery) throw new Error("nothing was delivered");
  const header = (name: string) => {
    const v = delivery.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  verifyV0(
    SECRET,
    {
      rawBody: delivery.body,
      timestamp: header("x-svc-request-timestamp"),
      signature: header("x-svc-signature"),
    },
    nowMs,
  );
  return delivery.body;
}

const payloadOf = (body: string): Json =>
  JSON.parse(new URLSearchParams(body).get("payload") ?? "null") as Json;

describe("app_home_opened", () => {
  it("reaches the app signed like user_change, with the view once one is published", async () => {
    // Prepare
    const { emu, events, clock } = await startHome();
    const before = await control(emu, "/_emulator/home_opened", { user: PERSON });
    await emu.flushEvents();
    const published = await call(
      emu,
      "views.publish",
      { user_id: PERSON, view: home([section("hi")]) },
      BOT,
    );
    const dm = await call(emu, "chat.postMessage", { channel: PERSON, text: "hello" }, BOT);
    // Act
    const after = await control(emu, "/_emulator/home_opened", { user: PERSON });
    await emu.flushEvents();
    // Assess
    expect(before).toMatchObject({ status: 200, body: { ok: true, app: APP } });
    expect(after.body.event_id).not.toBe(before.body.event_id);
    expect(events.received).toHaveLength(2);
    const [first, second] = events.received.map((d) => JSON.parse(verify(d, clock.now())) as Json);
    expect(first).toMatchObject({
      team_id: "T0CONF",
      api_app_id: APP,
      type: "event_callback",
      event_id: before.body.event_id,
      event_time: T0S,
      event: {
        type: "app_home_opened",
        user: PERSON,
        channel: dm.body.channel,
        tab: "home",
        event_ts: `${T0S}.000000`,
      },
    });
    expect(first?.event).not.toHaveProperty("view");
    expect((second?.event as Json | undefined)?.view).toEqual(published.body.view);
    expect(events.received[0]?.headers["content-type"]).toBe("application/json");
  });

  it("is retried after a failed delivery, re-signed, with the same event_id", async () => {
    // Prepare
    const { emu, events, clock } = await startHome({ eventAnswer: (n) => (n === 1 ? 500 : 200) });
    // Act
    await control(emu, "/_emulator/home_opened", { user: PERSON, tab: "messages" });
    await emu.flushEvents();
    // Assess
    expect(events.received).toHaveLength(2);
    const bodies = events.received.map((d) => JSON.parse(verify(d, clock.now())) as Json);
    expect(bodies[0]?.event_id).toBe(bodies[1]?.event_id);
    expect((bodies[1]?.event as Json | undefined)?.tab).toBe("messages");
    expect(events.received[1]?.headers["x-svc-retry-num"]).toBe("1");
    expect(events.received[1]?.headers["x-svc-retry-reason"]).toBe("http_error");
  });

  it("refuses an unknown person, a bot, a bad tab and an app that does not subscribe", async () => {
    // Prepare
    const { emu } = await startHome();
    // Act
    const nobody = await control(emu, "/_emulator/home_opened", { user: "U0NOBODY" });
    const aBot = await control(emu, "/_emulator/home_opened", { user: "U0BOT" });
    const tab = await control(emu, "/_emulator/home_opened", { user: PERSON, tab: "about" });
    const other = await control(emu, "/_emulator/home_opened", { user: PERSON, app: "A0RANGED" });
    const missing = await control(emu, "/_emulator/home_opened", {});
    // Assess
    expect(nobody.status).toBe(404);
    expect(aBot.status).toBe(404);
    expect(tab.status).toBe(400);
    expect(other.status).toBe(409);
    expect(String(other.body.error)).toContain("app_home_opened");
    expect(missing.status).toBe(400);
    expect(emu.pendingDeliveries()).toBe(0);
  });
});

describe("block_actions", () => {
  it("a click on a Home button posts the documented payload as a signed payload= form", async () => {
    // Prepare
    const { emu, interactive, clock } = await startHome();
    const published = await call(
      emu,
      "views.publish",
      {
        user_id: PERSON,
        view: home([
          section("Paused"),
          actions([button("resume", "now", { style: "primary" })], { block_id: "controls" }),
        ]),
      },
      BOT,
    );
    clock.advance(1500);
    // Act
    const click = await control(emu, "/_emulator/click", {
      user: PERSON,
      action_id: "resume",
      value: "now",
    });
    // Assess
    expect(click.status).toBe(200);
    expect(click.body).toMatchObject({ ok: true, delivered: true, status: 200 });
    expect(interactive.received).toHaveLength(1);
    const delivery = interactive.received[0];
    expect(delivery?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    const payload = payloadOf(verify(delivery, clock.now()));
    expect(payload).toEqual(click.body.payload);
    const view = published.body.view as Json;
    expect(payload).toMatchObject({
      type: "block_actions",
      user: { id: PERSON, name: "mia", team_id: "T0CONF" },
      api_app_id: APP,
      trigger_id: expect.stringMatching(/^\d+\.\d+\.[0-9a-f]+$/),
      team: { id: "T0CONF" },
      container: { type: "view", view_id: view.id },
      view: { id: view.id, hash: view.hash, type: "home" },
      actions: [
        {
          action_id: "resume",
          block_id: "controls",
          value: "now",
          type: "button",
          text: { type: "plain_text", text: "resume" },
          action_ts: `${T0S + 1}.500000`,
        },
      ],
    });
    expect(payload).not.toHaveProperty("response_url");
    expect((await state(emu)).interactions).toEqual([
      expect.objectContaining({
        appId: APP,
        user: PERSON,
        actionId: "resume",
        container: "view",
        outcome: "delivered",
      }),
    ]);
  });

  it("a click on a DM button carries the message, the channel and a response_url that works 5 times in 30 minutes", async () => {
    // Prepare
    const { emu, interactive, clock } = await startHome();
    const posted = await call(
      emu,
      "chat.postMessage",
      {
        channel: PERSON,
        text: "Your Google grant died",
        blocks: [section("Reconnect?"), actions([button("reconnect", "google")])],
      },
      BOT,
    );
    // Act
    const click = await control(emu, "/_emulator/click", { user: PERSON, action_id: "reconnect" });
    const payload = payloadOf(verify(interactive.received[0], clock.now()));
    const respond = (body: Json) =>
      fetch(String(payload.response_url), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Json }));
    const replaced = await respond({ replace_original: true, text: "Reconnecting…" });
    const added = await respond({ text: "Done" });
    for (let i = 0; i < 3; i++) await respond({ text: `more ${i}` });
    const sixth = await respond({ text: "too many" });
    // Assess
    expect(click.body.delivered).toBe(true);
    expect(payload).toMatchObject({
      type: "block_actions",
      container: {
        type: "message",
        message_ts: posted.body.ts,
        channel_id: posted.body.channel,
        is_ephemeral: false,
      },
      channel: { id: posted.body.channel },
      message: {
        ts: posted.body.ts,
        text: "Your Google grant died",
        bot_id: expect.stringMatching(/^B/),
      },
      response_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/actions\//),
      actions: [{ action_id: "reconnect", value: "google", type: "button" }],
    });
    expect(payload).not.toHaveProperty("view");
    expect(replaced).toEqual({ status: 200, body: { ok: true } });
    expect(added.status).toBe(200);
    expect(sixth).toEqual({ status: 404, body: { ok: false, error: "used_url" } });
    const messages = (await state(emu)).messages as Json[];
    expect(messages[0]).toMatchObject({ ts: posted.body.ts, text: "Reconnecting…" });
    expect(messages[0]).not.toHaveProperty("blocks");
    expect(messages[1]).toMatchObject({ text: "Done" });
    // The replaced message has no button left; a new DM's button gets a fresh URL, which
    // expires 30 minutes later on the emulator's clock.
    const gone = await control(emu, "/_emulator/click", {
      user: PERSON,
      action_id: "reconnect",
      ts: String(posted.body.ts),
    });
    expect(gone.status).toBe(404);
    await call(
      emu,
      "chat.postMessage",
      { channel: PERSON, text: "again", blocks: [actions([button("reconnect")])] },
      BOT,
    );
    await control(emu, "/_emulator/click", { user: PERSON, action_id: "reconnect" });
    const again = payloadOf(verify(interactive.received[1], clock.now()));
    clock.advance(30 * 60_000);
    const expired = await fetch(String(again.response_url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "late" }),
    });
    expect(expired.status).toBe(404);
    expect(await expired.json()).toEqual({ ok: false, error: "expired_url" });
  });

  it("refuses a click on a button that is not on the person's current view or latest DM", async () => {
    // Prepare
    const { emu, interactive } = await startHome();
    await call(
      emu,
      "views.publish",
      { user_id: PERSON, view: home([actions([button("pause", "p")])]) },
      BOT,
    );
    await call(
      emu,
      "views.publish",
      { user_id: PERSON, view: home([actions([button("resume", "r")])]) },
      BOT,
    );
    const old = await call(
      emu,
      "chat.postMessage",
      { channel: PERSON, text: "old", blocks: [actions([button("fix_old")])] },
      BOT,
    );
    await call(emu, "chat.postMessage", { channel: PERSON, text: "new" }, BOT);
    // Act
    const replacedButton = await control(emu, "/_emulator/click", {
      user: PERSON,
      action_id: "pause",
    });
    const wrongValue = await control(emu, "/_emulator/click", {
      user: PERSON,
      action_id: "resume",
      value: "p",
    });
    const olderDm = await control(emu, "/_emulator/click", { user: PERSON, action_id: "fix_old" });
    const someoneElse = await control(emu, "/_emulator/click", {
      user: "U0MEMBER2",
      action_id: "resume",
    });
    const noAction = await control(emu, "/_emulator/click", { user: PERSON });
    const byTs = await control(emu, "/_emulator/click", {
      user: PERSON,
      action_id: "fix_old",
      ts: String(old.body.ts),
    });
    // Assess
    for (const refused of [replacedButton, wrongValue, olderDm, someoneElse]) {
      expect(refused.status).toBe(404);
      expect(String(refused.body.error)).toMatch(/^no button with action_id/);
    }
    expect(noAction.status).toBe(400);
    expect(byTs.body.delivered).toBe(true);
    expect(interactive.received).toHaveLength(1);
  });

  it("makes one attempt: an app that does not answer within the limit is not retried", async () => {
    // Prepare
    const received: string[] = [];
    const slow = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        received.push(req.url ?? "");
        setTimeout(() => res.end(), 400);
      });
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/service/interactive`;
    const { emu } = await startHome({ interactiveUrl: url, interactionTimeoutMs: 150 });
    await call(
      emu,
      "views.publish",
      { user_id: PERSON, view: home([actions([button("sync")])]) },
      BOT,
    );
    try {
      // Act
      const click = await control(emu, "/_emulator/click", { user: PERSON, action_id: "sync" });
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Assess
      expect(click.body).toMatchObject({ ok: true, delivered: false, reason: "http_timeout" });
      expect(received).toHaveLength(1);
      expect((await state(emu)).interactions).toEqual([
        expect.objectContaining({ outcome: "failed", reason: "http_timeout" }),
      ]);
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });

  it("answers 409 when the app has interactivity off", async () => {
    const { emu } = await startHome({ interactivity: false });
    await call(
      emu,
      "views.publish",
      { user_id: PERSON, view: home([actions([button("sync")])]) },
      BOT,
    );
    const click = await control(emu, "/_emulator/click", { user: PERSON, action_id: "sync" });
    expect(click.status).toBe(409);
    expect(String(click.body.error)).toContain("interactivity");
  });
});
