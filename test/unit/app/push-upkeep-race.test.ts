import { describe, expect, it } from "vitest";
import { loadConfig } from "#lib/app/config";
import { createConnectAccess } from "#lib/app/connect-access";
import type { SyncMessage } from "#lib/app/contracts";
import { LocalTokenVault } from "#lib/app/local-token-vault";
import { runUpkeep } from "#lib/app/push-schedule";
import { CHANNEL_RETIRE_GRACE_MS, type PushUpkeepDeps, stopPush } from "#lib/app/push-upkeep";
import { findChannel } from "#lib/app/users";
import { ManualClock } from "#lib/core/clock";
import type { Queue } from "#lib/core/ports";
import type { SourceRecord } from "#lib/core/records";
import { MemoryStore } from "#lib/store/memory-store";
import { MemoryUpkeepSchedule } from "#lib/store/memory-upkeep-schedule";
import { plainUser, statuslessContext } from "../../integration/app/statusless-context";

/**
 * A renewal under way while the person removes the calendar. The web's removal stops the
 * source's channel first (stopPush: the upkeep entry deleted, the binding retired, Google's
 * channels.stop), then drops the source. A sync worker that claimed the upkeep just before has
 * its events.watch in flight. When Google answers, the worker finds the source gone as it writes
 * the record (setPush writes nothing then): it stops the new channel, retires its binding at
 * once, and parks the upkeep entry instead of writing its next instant, which would bring the
 * removed source's entry back.
 */
const DAY = 86_400_000;
const MIN = 60_000;
const T0 = Date.UTC(2026, 3, 1, 9);
const KEY = { team: "T0DEMO", user: "U001" };
const API = "https://google.example";

/** Google's events.watch and channels.stop, with a gate on the watch's answer. */
function fakeGoogle() {
  let release: () => void = () => {};
  const watchAnswered = new Promise<void>((resolve) => {
    release = resolve;
  });
  let watchArrived: () => void = () => {};
  const watching = new Promise<void>((resolve) => {
    watchArrived = resolve;
  });
  const live = new Set<string>(["old-channel"]);
  const fetchStub = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body = JSON.parse(String(init?.body ?? "{}")) as { id: string };
    if (url.pathname.endsWith("/events/watch")) {
      watchArrived();
      await watchAnswered;
      live.add(body.id);
      return Response.json({ id: body.id, resourceId: "res-1", expiration: String(T0 + 7 * DAY) });
    }
    if (url.pathname.endsWith("/channels/stop")) {
      live.delete(body.id);
      return new Response(null, { status: 204 });
    }
    return new Response("not found", { status: 404 });
  }) as typeof fetch;
  return { fetchStub, live, watching, release };
}

describe("a renewal racing the calendar's removal", () => {
  it("leaves no channel open, no binding alive and no upkeep entry for the removed calendar", async () => {
    const clock = new ManualClock(T0);
    const store = new MemoryStore();
    const ctx = statuslessContext({
      store,
      clock,
      tokens: new LocalTokenVault(Buffer.alloc(32, 3)),
    });
    // A Google calendar whose 7-day channel is at its renewal (past 80 % of its lifetime).
    const source: SourceRecord = {
      id: "google-1",
      kind: "google",
      url: `${API}/calendar/v3/calendars/primary`,
      refreshTokenSealed: "sealed-refresh-token",
      push: {
        channelId: "old-channel",
        resourceId: "res-0",
        createdAt: T0 - 6 * DAY,
        expiresAt: T0 + DAY,
      },
    };
    await store.putUser(plainUser(KEY, T0 - 6 * DAY, [source]), undefined);
    await store.putChannel(
      { channelId: "old-channel", key: KEY, sourceId: "google-1", kind: "google", version: 0 },
      undefined,
    );
    const google = fakeGoogle();
    const config = loadConfig({
      TABLE_NAME: "t",
      SERVICE_BASE_URL: "https://svc.example/api",
      SIGNING_SECRET: "s",
      TOKEN_KEY: "k",
      PUBLIC_BASE_URL: "https://statuspilot.example",
      GOOGLE_CLIENT_ID: "client",
      GOOGLE_CLIENT_SECRET: "secret",
      GOOGLE_API_BASE_URL: API,
    });
    const access = createConnectAccess({
      ctx,
      config,
      fetch: google.fetchStub,
      readParameter: async () => "",
    });
    access.remember(KEY, "google-1", {
      accessToken: "access-token",
      expiresInS: 3600,
      refreshTokenSealed: "sealed-refresh-token",
    });
    const schedule = new MemoryUpkeepSchedule();
    await schedule.set({ key: KEY, sourceId: "google-1", dueAt: T0, failures: 0 });
    const upkeep: PushUpkeepDeps = {
      ctx,
      config,
      access,
      signingSecret: async () => "s",
      newChannelId: () => "new-channel",
      schedule,
    };
    const syncQueue: Queue<SyncMessage> = { send: async () => {} };

    // The tick's upkeep message: the worker claims the entry and asks Google for a new channel.
    const renewal = runUpkeep({ upkeep, schedule, syncQueue }, KEY, "google-1", {
      readNewChannel: true,
    });
    await google.watching;
    // Meanwhile the person removes the calendar (the web: stopPushes, then removeCalendar).
    const stored = (await store.getUser(KEY))?.sources.find((s) => s.id === "google-1");
    if (stored === undefined) throw new Error("source missing before its removal");
    await stopPush(upkeep, KEY, stored);
    const user = await store.getUser(KEY);
    if (user === undefined) throw new Error("user missing");
    await store.putUser({ ...user, sources: [] }, user.version);
    // Google answers the watch; the renewal finishes.
    google.release();
    await renewal;

    // The calendar is gone: no channel of it open at Google,
    expect([...google.live]).toEqual([]);
    // no binding of it authenticating a push once the grace of replaced channels is over,
    clock.set(T0 + CHANNEL_RETIRE_GRACE_MS + MIN);
    expect(await findChannel(ctx, "new-channel", { openSecret: false })).toBeUndefined();
    // and no upkeep of it ever due again.
    expect(await schedule.dueBy(T0 + 30 * DAY)).toEqual([]);
  });
});
