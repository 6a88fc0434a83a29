import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningMicrosoftEmulator, startMicrosoftEmulator } from "#emulator/microsoft/server";
import { ProviderError } from "#lib/calendar/providers/errors";
import { graphApi, graphPushHook } from "#lib/calendar/providers/graph";
import type { ApiDeps, PushChannel } from "#lib/calendar/providers/provider";
import { ManualClock } from "#lib/core/clock";
import { silentLog } from "#lib/core/ports";
import { channelToken } from "#lib/http/channel-token";
import type { WebhookRequest } from "#lib/http/request";
import { MS_CLIENT as CLIENT, MS_T0 as T0, MS_USER as USER } from "./microsoft-demo";

// The Graph provider against the Microsoft emulator, over real HTTP: the OAuth client, the read
// (delta rounds, paging, the cursor, throttling), and the subscription lifecycle with our own
// hook answering the handshake and authenticating the notifications.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SECRET = "demo-signing-secret";
const CHANNEL = "0123456789abcdef0123456789abcdef";
const closers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c.close()));
});

async function setup() {
  const clock = new ManualClock(T0);
  const emu: RunningMicrosoftEmulator = await startMicrosoftEmulator({
    clock,
    expirySweepMs: 0,
    notificationRetryDelaysMs: [],
  });
  closers.push(emu);
  const waits: number[] = [];
  const api = graphApi({
    graphBaseUrl: emu.graphBaseUrl,
    sleep: async (ms) => void waits.push(ms),
  });
  // A fresh token per call, as the app layer's refresh would give: tests move the clock by hours.
  const accessToken = async () =>
    (
      emu.issueTokens(CLIENT.clientId, USER, ["offline_access", "Calendars.Read"]) as {
        access_token: string;
      }
    ).access_token;
  const deps: ApiDeps = { fetch, clock, accessToken };
  return { emu, clock, api, deps, waits };
}

/** Our Graph hook behind a real HTTP endpoint: the handshake and the notifications. */
async function startHook(channels: Record<string, PushChannel>) {
  const accepted: Array<{ channels: PushChannel[]; lifecycle: unknown }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://hook.invalid");
      const request: WebhookRequest = {
        path: url.pathname,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        query: Object.fromEntries(url.searchParams),
        params: {},
        rawBody: Buffer.concat(chunks).toString("utf8"),
      };
      graphPushHook
        .verifyPush(request, {
          clock: new ManualClock(T0),
          log: silentLog,
          signingSecret: async () => SECRET,
          findChannel: async (id) => channels[id],
        })
        .then((verdict) => {
          if (verdict.kind === "accepted") {
            accepted.push({ channels: verdict.channels, lifecycle: verdict.lifecycle });
          }
          const reply =
            verdict.kind === "answer"
              ? verdict.reply
              : verdict.reply(verdict.channels.map(() => true));
          if ("text" in reply) {
            res.writeHead(reply.status, { "content-type": "text/plain; charset=utf-8" });
            res.end(reply.text);
          } else {
            res.writeHead(reply.status, { "content-type": "application/json" });
            res.end(JSON.stringify(reply.json));
          }
        })
        .catch(() => {
          res.writeHead(401);
          res.end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/graph`;
  const handle = {
    url,
    accepted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  closers.push(handle);
  return handle;
}

describe("Graph provider against the Microsoft emulator", () => {
  it("OAuth: the authorize URL's consent gives a code that exchanges and refreshes; a revoked grant is invalid_grant", async () => {
    const { emu } = await setup();
    const redirectUri = "http://127.0.0.1:9/connect/microsoft/callback";
    const { oauth } = graphApi({ graphBaseUrl: emu.graphBaseUrl });
    const authorize = oauth.authorizeUrl({
      clientId: CLIENT.clientId,
      redirectUri,
      state: "s1",
      authUrl: emu.authUrl,
    });
    expect(new URL(authorize).searchParams.get("scope")).toBe("offline_access Calendars.Read");
    const consent = await fetch(`${authorize}&as=${USER}`, { redirect: "manual" });
    const back = new URL(consent.headers.get("location") ?? "");
    expect(back.searchParams.get("state")).toBe("s1");
    const base = {
      clientId: CLIENT.clientId,
      clientSecret: CLIENT.clientSecret,
      tokenUrl: emu.tokenUrl,
    };
    const first = await oauth.exchange(
      { ...base, grant: { code: back.searchParams.get("code") ?? "", redirectUri } },
      fetch,
    );
    expect(first.expiresInS).toBeGreaterThan(0);
    expect(first.refreshToken).toBeTypeOf("string");
    const again = await oauth.exchange(
      { ...base, grant: { refreshToken: first.refreshToken ?? "" } },
      fetch,
    );
    expect(again.accessToken).not.toBe(first.accessToken);
    emu.revokeRefreshTokens(USER);
    const dead = oauth.exchange(
      { ...base, grant: { refreshToken: first.refreshToken ?? "" } },
      fetch,
    );
    await expect(dead).rejects.toMatchObject({ name: "ProviderError", code: "invalid_grant" });
  });

  it("reads the window through every page, then answers unchanged by the cursor until an edit", async () => {
    const { emu, api, deps } = await setup();
    for (let i = 0; i < 130; i++) {
      emu.createEvent(USER, {
        subject: `m${i}`,
        start: T0 + i * 60_000,
        end: T0 + i * 60_000 + 30_000,
      });
    }
    const cancelled = emu.createEvent(USER, {
      subject: "gone",
      start: T0 + HOUR,
      end: T0 + 2 * HOUR,
      isCancelled: true,
    });
    const window = { from: T0 - DAY, to: T0 + 14 * DAY };
    const first = await api.readWindow({ window, tz: "UTC" }, deps);
    expect(first.fetch.kind).toBe("fetched");
    if (first.fetch.kind !== "fetched") return;
    expect(first.fetch.occurrences).toHaveLength(130);
    expect(first.fetch.skipped).toEqual([{ reason: "cancelled", uid: cancelled }]);
    const deltaCalls = emu.calls().filter((c) => c.path.endsWith("/calendarView/delta"));
    expect(deltaCalls.length).toBe(2);

    const quiet = await api.readWindow(
      { window, tz: "UTC", ...(first.cursor ? { cursor: first.cursor } : {}) },
      deps,
    );
    expect(quiet.fetch.kind).toBe("unchanged");

    emu.updateEvent(USER, cancelled, { isCancelled: false, showAs: "oof" });
    const changed = await api.readWindow(
      { window, tz: "UTC", ...(quiet.cursor ? { cursor: quiet.cursor } : {}) },
      deps,
    );
    expect(
      changed.fetch.kind === "fetched" &&
        changed.fetch.occurrences.find((o) => o.uid === cancelled),
    ).toMatchObject({
      busyStatus: "OOF",
    });
  });

  it("a cursor Graph no longer knows (410) reads the window in full", async () => {
    const { emu, api, deps } = await setup();
    emu.createEvent(USER, { subject: "a", start: T0, end: T0 + HOUR });
    const window = { from: T0 - DAY, to: T0 + DAY };
    const first = await api.readWindow({ window, tz: "UTC" }, deps);
    emu.setFaults({ expireDeltaNext: 1 });
    const again = await api.readWindow(
      { window, tz: "UTC", ...(first.cursor ? { cursor: first.cursor } : {}) },
      deps,
    );
    expect(again.fetch.kind).toBe("fetched");
  });

  it("waits out a short Retry-After and throws rate_limited with retryAfterS for a long one", async () => {
    const { emu, api, deps, waits } = await setup();
    const window = { from: T0, to: T0 + DAY };
    emu.setFaults({ throttleNext: 1, retryAfterS: 2 });
    expect((await api.readWindow({ window, tz: "UTC" }, deps)).fetch.kind).toBe("fetched");
    expect(waits).toEqual([2000]);
    emu.setFaults({ throttleNext: 1, retryAfterS: 120 });
    const error = await api.readWindow({ window, tz: "UTC" }, deps).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: "rate_limited", retryAfterS: 120 });
  });

  it("subscribes (our hook answers the handshake), is notified of edits, renews by PATCH and unsubscribes", async () => {
    const { emu, clock, api, deps } = await setup();
    const hook = await startHook({ [CHANNEL]: { team: "T1", user: "U1", sourceId: "outlook" } });
    const req = {
      notificationUrl: hook.url,
      lifecycleUrl: hook.url,
      // What the app's push upkeep sends: the channel id's derived token.
      token: channelToken(SECRET, CHANNEL),
      channelId: CHANNEL,
      ttlMs: 30 * DAY,
    };
    const sub = await api.push.subscribe(req, deps);
    // Asked for 30 days: capped under Graph's 10,080-minute maximum.
    expect(sub.expiresAt).toBeLessThanOrEqual(T0 + 10_080 * 60_000);
    expect(sub.expiresAt).toBeGreaterThan(T0 + 10_000 * 60_000);

    emu.createEvent(USER, { subject: "new", start: T0 + HOUR, end: T0 + 2 * HOUR });
    await emu.flushNotifications();
    expect(hook.accepted.map((a) => a.channels)).toEqual([
      [{ team: "T1", user: "U1", sourceId: "outlook" }],
    ]);

    emu.removeSubscription(sub.channelId);
    await emu.flushNotifications();
    expect(hook.accepted[1]?.lifecycle).toMatchObject([
      { action: "recreate", subscriptionId: sub.channelId },
    ]);

    // Renewing a removed subscription creates a new one.
    clock.advance(HOUR);
    const renewed = await api.push.renew(sub, { ...req, ttlMs: 2 * DAY }, deps);
    expect(renewed.channelId).not.toBe(sub.channelId);
    expect(renewed.expiresAt).toBe(T0 + HOUR + 2 * DAY);
    const patched = await api.push.renew(renewed, { ...req, ttlMs: 3 * DAY }, deps);
    expect(patched).toEqual({ channelId: renewed.channelId, expiresAt: T0 + HOUR + 3 * DAY });

    await api.push.unsubscribe(patched, deps);
    await api.push.unsubscribe(patched, deps);
    expect(emu.subscriptions()).toEqual([]);
  });

  it("a subscription whose endpoint fails the handshake is refused", async () => {
    const { api, deps } = await setup();
    const refusing = createServer((_req, res) => {
      res.writeHead(404);
      res.end();
    });
    await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
    closers.push({ close: () => new Promise<void>((resolve) => refusing.close(() => resolve())) });
    const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/hooks/graph`;
    const attempt = api.push.subscribe(
      { notificationUrl: url, token: "t", channelId: CHANNEL, ttlMs: DAY },
      deps,
    );
    await expect(attempt).rejects.toMatchObject({ code: "upstream_status", status: 400 });
  });
});
