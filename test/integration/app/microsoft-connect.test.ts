import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningMicrosoftEmulator, startMicrosoftEmulator } from "#emulator/microsoft/server";
import { createConnectAccess } from "#lib/app/accounts/access";
import { connectProviderAt } from "#lib/app/accounts/providers";
import { loadConfig } from "#lib/app/config";
import { completeConnect, connectUrl } from "#lib/app/connect/flow";
import { findChannel } from "#lib/app/push/channels";
import { requestPushWork } from "#lib/app/push/requests";
import { CHANNEL_RETIRE_GRACE_MS, upkeepPush } from "#lib/app/push/upkeep";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { graphProvider, graphPushHook } from "#lib/calendar/providers/graph";
import type { PushChannel } from "#lib/calendar/providers/provider";
import { ManualClock } from "#lib/core/clock";
import { silentLog } from "#lib/core/ports";
import type { WebhookRequest } from "#lib/http/request";
import { MemoryStore } from "#lib/store/memory-store";
import { MINIMAL_APP_ENV } from "../../support/app-env";
import { MS_CLIENT as CLIENT, MS_USER, MS_T0 as T0 } from "../emulator/microsoft-demo";
import { plainUser, statuslessContext } from "./statusless-context";

// Connecting Microsoft through the app's connect flow, against the Microsoft emulator over real
// HTTP: consent, the code exchanged, the refresh token stored sealed, the first subscription
// (Graph's handshake answered by our hook), a calendar edit notified to the hook and
// authenticated there, and the connected source read through Graph.

const HOUR = 3_600_000;
const KEY = { team: "T0DEMO", user: "U001" };
const SIGNING_SECRET = "demo-signing-secret";
const closers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c.close()));
});

/** Our Graph hook on a real port, finding channels in the store as the webhook function does. */
async function startHook(store: MemoryStore) {
  const pushed: PushChannel[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://hook.invalid");
      const request: WebhookRequest = {
        path: url.pathname,
        headers: {},
        query: Object.fromEntries(url.searchParams),
        params: {},
        rawBody: Buffer.concat(chunks).toString("utf8"),
      };
      graphPushHook
        .verifyPush(request, {
          clock: new ManualClock(T0),
          log: silentLog,
          signingSecret: async () => SIGNING_SECRET,
          findChannel: async (id) => {
            const c = await store.getChannel(id);
            return c?.kind === "graph" ? { ...c.key, sourceId: c.sourceId } : undefined;
          },
        })
        .then((verdict) => {
          if (verdict.kind === "accepted") pushed.push(...verdict.channels);
          const reply = verdict.kind === "answer" ? verdict.reply : verdict.reply([true]);
          res.writeHead(reply.status, {
            "content-type": "text" in reply ? "text/plain" : "application/json",
          });
          res.end("text" in reply ? reply.text : JSON.stringify(reply.json));
        })
        .catch(() => {
          res.writeHead(401);
          res.end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pushed };
}

async function setup() {
  const clock = new ManualClock(T0);
  const emu: RunningMicrosoftEmulator = await startMicrosoftEmulator({
    clock,
    expirySweepMs: 0,
    notificationRetryDelaysMs: [],
  });
  closers.push(emu);
  const store = new MemoryStore();
  const hook = await startHook(store);
  const config = loadConfig({
    ...MINIMAL_APP_ENV,
    SIGNING_SECRET,
    PUBLIC_BASE_URL: hook.base,
    MICROSOFT_CLIENT_ID: CLIENT.clientId,
    MICROSOFT_CLIENT_SECRET: CLIENT.clientSecret,
    MICROSOFT_AUTH_URL: emu.authUrl,
    MICROSOFT_TOKEN_URL: emu.tokenUrl,
    MICROSOFT_GRAPH_BASE_URL: emu.graphBaseUrl,
  });
  const ctx = statuslessContext({ store, clock, tokens: new LocalTokenVault(Buffer.alloc(32, 5)) });
  await store.putUser(plainUser(KEY, T0), undefined);
  const accessDeps = { ctx, config, fetch, readParameter: async () => "" };
  const access = createConnectAccess(accessDeps);
  let ids = 0;
  const upkeep = {
    ctx,
    config,
    access,
    signingSecret: async () => SIGNING_SECRET,
    newChannelId: () => `${++ids}`.padStart(32, "c"),
  };
  return { emu, clock, store, hook, config, access, flow: { ...accessDeps, upkeep } };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** The user consents at the emulator as MS_USER; the callback's code completes the connect. */
async function connectMicrosoft({ hook, config, flow }: Pick<Setup, "hook" | "config" | "flow">) {
  const provider = connectProviderAt("microsoft");
  if (!provider) throw new Error("no microsoft connect provider");
  const redirectUri = `${hook.base}/connect/microsoft/callback`;
  const authorize = connectUrl({ config }, provider, { redirectUri, state: "st" });
  const consent = await fetch(`${authorize}&as=${MS_USER}`, { redirect: "manual" });
  const code = new URL(consent.headers.get("location") ?? "").searchParams.get("code") ?? "";
  return completeConnect(flow, provider, KEY, { code, redirectUri });
}

describe("connecting Microsoft through the app", () => {
  it("consent, exchange, first subscription; an edit notifies the hook; the source reads through Graph", async () => {
    const { emu, store, hook, config, access, flow } = await setup();
    const outcome = await connectMicrosoft({ hook, config, flow });
    expect(outcome.push.kind).toBe("created");
    const [sub] = emu.subscriptions();
    expect(sub).toMatchObject({
      resource: "me/events",
      notificationUrl: `${hook.base}/hooks/graph`,
    });
    const user = await store.getUser(KEY);
    const source = user?.sources.find((s) => s.id === outcome.sourceId);
    expect(source?.kind).toBe("graph");
    expect(source?.refreshTokenSealed).toBeTypeOf("string");

    emu.createEvent(MS_USER, { subject: "Standup", start: T0 + HOUR, end: T0 + 2 * HOUR });
    await emu.flushNotifications();
    expect(hook.pushed).toEqual([{ ...KEY, sourceId: outcome.sourceId }]);

    if (!source) throw new Error("no source");
    const read = await graphProvider.readApi(
      { tz: "UTC", emails: [] },
      { from: T0, to: T0 + 24 * HOUR },
      access.apiDeps(KEY, source),
    );
    expect(read.fetch.kind === "fetched" && read.fetch.occurrences.map((o) => o.summary)).toEqual([
      "Standup",
    ]);
  });

  it("a PATCH renewal keeps the subscription's binding; a recreate retires it after the grace", async () => {
    const { emu, clock, store, hook, config, flow } = await setup();
    const { sourceId } = await connectMicrosoft({ hook, config, flow });
    const ctx = flow.upkeep.ctx;
    const sourceOf = async () => {
      const s = (await store.getUser(KEY))?.sources.find((x) => x.id === sourceId);
      if (s?.push === undefined) throw new Error("no push channel");
      return s;
    };
    // The first subscription's clientState carries the first channel id (the binding in use).
    const first = (await sourceOf()).push;
    const firstBinding = "1".padStart(32, "c");
    expect(first?.bindingId).toBe(firstBinding);

    // Act: past 80% of its lifetime the upkeep renews it with PATCH: the same subscription.
    clock.set(first ? first.createdAt + Math.ceil((first.expiresAt - first.createdAt) * 0.81) : 0);
    const renewed = await upkeepPush(flow.upkeep, KEY, await sourceOf());
    expect(renewed).toMatchObject({ kind: "renewed", channelId: first?.channelId });
    // Graph keeps the clientState: its binding stays; the one made for the renewal never serves.
    expect((await sourceOf()).push?.bindingId).toBe(firstBinding);
    expect(await findChannel(ctx, firstBinding)).toMatchObject({ sourceId });
    expect(await findChannel(ctx, "2".padStart(32, "c"))).toBeUndefined();

    // Act: Graph removed it; the upkeep makes a new subscription with a new clientState.
    await requestPushWork(ctx, KEY, sourceId, "recreate", first?.channelId);
    const recreated = await upkeepPush(flow.upkeep, KEY, await sourceOf());
    expect(recreated.kind).toBe("recreated");
    expect((await sourceOf()).push?.bindingId).toBe("3".padStart(32, "c"));
    expect(emu.subscriptions()).toHaveLength(1);
    // The old binding serves the notifications on their way for the grace, then nothing.
    expect(await findChannel(ctx, firstBinding)).toBeDefined();
    clock.set(clock.now() + CHANNEL_RETIRE_GRACE_MS);
    expect(await findChannel(ctx, firstBinding)).toBeUndefined();
    expect(await findChannel(ctx, "3".padStart(32, "c"))).toMatchObject({ sourceId });
  });
});
