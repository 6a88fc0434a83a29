import { describe, expect, it } from "vitest";
import { ProviderError } from "#lib/calendar/providers/errors";
import { googlePushLifecycle, readGoogleWindow } from "#lib/calendar/providers/google";
import { stopChannel } from "#lib/calendar/providers/google-api";
import type { ApiReadDeps } from "#lib/calendar/providers/provider";
import { ManualClock } from "#lib/core/clock";

/**
 * events.list, events.watch and channels.stop against a fake that answers as the Calendar API
 * reference says: pages with nextPageToken, nextSyncToken on the last page only, 410 for an
 * expired sync token, 401 for a bad access token, 403 rateLimitExceeded / 429 with Retry-After.
 */
const BASE = "https://calendar.test";
const NOW = Date.parse("2026-03-02T08:00:00Z");
const WINDOW = { from: NOW - 86_400_000, to: NOW + 14 * 86_400_000 };

const event = (id: string, hour: number, over: Record<string, unknown> = {}) => ({
  id,
  status: "confirmed",
  summary: id,
  start: { dateTime: `2026-03-02T${String(hour).padStart(2, "0")}:00:00Z` },
  end: { dateTime: `2026-03-02T${String(hour + 1).padStart(2, "0")}:00:00Z` },
  ...over,
});

interface Answer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

function fakeGoogle(answer: (url: URL, init: RequestInit, token: string) => Answer) {
  const calls: Array<{ method: string; url: URL; body?: unknown }> = [];
  const fetchFn = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(String(input));
    const token = String((init.headers as Record<string, string>).authorization ?? "").replace(
      /^Bearer /,
      "",
    );
    calls.push({
      method: init.method ?? "GET",
      url,
      ...(init.body !== undefined ? { body: JSON.parse(String(init.body)) } : {}),
    });
    const a = answer(url, init, token);
    return new Response(a.body === undefined ? null : JSON.stringify(a.body), {
      status: a.status ?? 200,
      headers: { "content-type": "application/json", ...a.headers },
    });
  }) as typeof fetch;
  return { fetchFn, calls };
}

const depsWith = (fetchFn: typeof fetch, extra: Partial<ApiReadDeps> = {}): ApiReadDeps => ({
  fetch: fetchFn,
  clock: new ManualClock(NOW),
  apiBaseUrl: BASE,
  accessToken: async () => "good",
  ...extra,
});

const source = { tz: "UTC", emails: [] };

describe("readGoogleWindow", () => {
  it("reads the window with singleEvents on primary, following every page, and keeps the sync token", async () => {
    const { fetchFn, calls } = fakeGoogle((url) =>
      url.searchParams.get("pageToken") === null
        ? { body: { items: [event("a", 9)], nextPageToken: "p2" } }
        : { body: { items: [event("b", 12)], nextSyncToken: "sync-1" } },
    );
    const read = await readGoogleWindow(source, WINDOW, depsWith(fetchFn));
    expect(calls.map((c) => c.url.pathname)).toEqual([
      "/calendar/v3/calendars/primary/events",
      "/calendar/v3/calendars/primary/events",
    ]);
    expect(calls[0]?.url.searchParams.get("singleEvents")).toBe("true");
    expect(calls[0]?.url.searchParams.get("timeMin")).toBe(new Date(WINDOW.from).toISOString());
    expect(calls[0]?.url.searchParams.get("timeMax")).toBe(new Date(WINDOW.to).toISOString());
    expect(calls[1]?.url.searchParams.get("pageToken")).toBe("p2");
    expect(read.cursor).toBe("sync-1");
    expect(read.fetch.kind).toBe("fetched");
    if (read.fetch.kind === "fetched") {
      expect(read.fetch.occurrences.map((o) => o.uid)).toEqual(["a", "b"]);
    }
  });

  it("with a cursor and no change: one incremental call, unchanged, no time bounds", async () => {
    const { fetchFn, calls } = fakeGoogle(() => ({ body: { items: [], nextSyncToken: "sync-1" } }));
    const read = await readGoogleWindow({ ...source, cursor: "sync-1" }, WINDOW, depsWith(fetchFn));
    expect(calls).toHaveLength(1);
    expect(calls[0]?.url.searchParams.get("syncToken")).toBe("sync-1");
    expect(calls[0]?.url.searchParams.get("timeMin")).toBeNull();
    expect(read.fetch.kind).toBe("unchanged");
    expect(read.cursor).toBe("sync-1");
    expect(read.changedSinceCursor).toBeUndefined();
  });

  it("with a cursor and a change: reads the window in full and stores the incremental token", async () => {
    const { fetchFn, calls } = fakeGoogle((url) =>
      url.searchParams.get("syncToken") !== null
        ? { body: { items: [event("a", 9, { status: "cancelled" })], nextSyncToken: "sync-2" } }
        : { body: { items: [event("b", 12)], nextSyncToken: "sync-full" } },
    );
    const read = await readGoogleWindow({ ...source, cursor: "sync-1" }, WINDOW, depsWith(fetchFn));
    expect(calls).toHaveLength(2);
    expect(read.cursor).toBe("sync-2");
    expect(read.changedSinceCursor).toBe(true);
    expect(read.fetch.kind === "fetched" && read.fetch.occurrences.map((o) => o.uid)).toEqual([
      "b",
    ]);
  });

  it("410 Gone for the sync token: a full resync with a new token", async () => {
    const { fetchFn, calls } = fakeGoogle((url) =>
      url.searchParams.get("syncToken") !== null
        ? { status: 410, body: { error: { code: 410, errors: [{ reason: "fullSyncRequired" }] } } }
        : { body: { items: [event("a", 9)], nextSyncToken: "sync-new" } },
    );
    const read = await readGoogleWindow({ ...source, cursor: "old" }, WINDOW, depsWith(fetchFn));
    expect(calls).toHaveLength(2);
    expect(calls[1]?.url.searchParams.get("timeMin")).not.toBeNull();
    expect(read.cursor).toBe("sync-new");
    expect(read.fetch.kind).toBe("fetched");
  });

  it("the same occurrences as last time answer unchanged", async () => {
    const { fetchFn } = fakeGoogle(() => ({
      body: { items: [event("a", 9)], nextSyncToken: "s" },
    }));
    const first = await readGoogleWindow(source, WINDOW, depsWith(fetchFn));
    const hash = first.fetch.kind === "fetched" ? first.fetch.validators.hash : "";
    const again = await readGoogleWindow({ ...source, hash }, WINDOW, depsWith(fetchFn));
    expect(again.fetch.kind).toBe("unchanged");
  });

  it("401: refreshes the access token once and retries", async () => {
    const { fetchFn, calls } = fakeGoogle((_url, _init, token) =>
      token === "fresh"
        ? { body: { items: [], nextSyncToken: "s" } }
        : { status: 401, body: { error: { code: 401, status: "UNAUTHENTICATED" } } },
    );
    let refreshed = 0;
    const deps = depsWith(fetchFn, {
      accessToken: async () => "stale",
      refreshAccessToken: async () => {
        refreshed++;
        return "fresh";
      },
    });
    const read = await readGoogleWindow(source, WINDOW, deps);
    expect(refreshed).toBe(1);
    expect(calls).toHaveLength(2);
    expect(read.cursor).toBe("s");
  });

  it.each([
    [403, { error: { code: 403, errors: [{ reason: "rateLimitExceeded" }] } }, "rate_limited"],
    [403, { error: { code: 403, errors: [{ reason: "userRateLimitExceeded" }] } }, "rate_limited"],
    [429, { error: { code: 429, errors: [{ reason: "rateLimitExceeded" }] } }, "rate_limited"],
    [403, { error: { code: 403, errors: [{ reason: "forbidden" }] } }, "upstream_status"],
    [500, { error: { code: 500 } }, "upstream_status"],
  ])("%i %j is %s", async (status, body, code) => {
    const { fetchFn } = fakeGoogle(() => ({ status, body, headers: { "retry-after": "7" } }));
    const error = await readGoogleWindow(source, WINDOW, depsWith(fetchFn)).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    if (code === "rate_limited") expect(error.retryAfterS).toBe(7);
  });
});

describe("googlePushLifecycle", () => {
  const request = {
    notificationUrl: "https://sp.test/hooks/google",
    token: "tok",
    channelId: "chan-2",
    ttlMs: 3_600_000,
  };

  it("subscribe: events.watch on primary with a web_hook, our address, token and ttl", async () => {
    const { fetchFn, calls } = fakeGoogle(() => ({
      body: { id: "chan-2", resourceId: "res-1", expiration: String(NOW + 1_800_000) },
    }));
    const sub = await googlePushLifecycle(BASE).subscribe(request, depsWith(fetchFn));
    expect(calls[0]?.url.pathname).toBe("/calendar/v3/calendars/primary/events/watch");
    expect(calls[0]?.body).toEqual({
      id: "chan-2",
      type: "web_hook",
      address: "https://sp.test/hooks/google",
      token: "tok",
      params: { ttl: "3600" },
    });
    // Google may grant less than asked: its expiration counts.
    expect(sub).toEqual({ channelId: "chan-2", resourceId: "res-1", expiresAt: NOW + 1_800_000 });
  });

  // The old channel is stopped by the upkeep once the record names the new one
  // (test/unit/app/push-upkeep-write-failure.test.ts), not by the renewal itself.
  it("renew: a new channel, the old one left open", async () => {
    const { fetchFn, calls } = fakeGoogle((url) =>
      url.pathname.endsWith("/watch")
        ? { body: { id: "chan-2", resourceId: "res-2", expiration: String(NOW + 3_600_000) } }
        : { status: 204 },
    );
    const old = { channelId: "chan-1", resourceId: "res-1", expiresAt: NOW + 60_000 };
    const next = await googlePushLifecycle(BASE).renew(old, request, depsWith(fetchFn));
    expect(calls.map((c) => c.url.pathname)).toEqual([
      "/calendar/v3/calendars/primary/events/watch",
    ]);
    expect(next.channelId).toBe("chan-2");
  });

  it("unsubscribe: channels.stop with the channel's id and resourceId", async () => {
    const { fetchFn, calls } = fakeGoogle(() => ({ status: 204 }));
    const old = { channelId: "chan-1", resourceId: "res-1", expiresAt: NOW + 60_000 };
    await googlePushLifecycle(BASE).unsubscribe(old, depsWith(fetchFn));
    expect(calls.map((c) => c.url.pathname)).toEqual(["/calendar/v3/channels/stop"]);
    expect(calls[0]?.body).toEqual({ id: "chan-1", resourceId: "res-1" });
  });

  it("renew that cannot create the new channel keeps the old one (no stop)", async () => {
    const { fetchFn, calls } = fakeGoogle(() => ({ status: 500, body: { error: { code: 500 } } }));
    const old = { channelId: "chan-1", resourceId: "res-1", expiresAt: NOW + 60_000 };
    await expect(
      googlePushLifecycle(BASE).renew(old, request, depsWith(fetchFn)),
    ).rejects.toBeInstanceOf(ProviderError);
    expect(calls.map((c) => c.url.pathname)).toEqual([
      "/calendar/v3/calendars/primary/events/watch",
    ]);
  });

  it("stopping a channel Google no longer knows (404) is done", async () => {
    const { fetchFn } = fakeGoogle(() => ({ status: 404, body: { error: { code: 404 } } }));
    await expect(
      stopChannel(depsWith(fetchFn), { channelId: "gone", expiresAt: NOW }),
    ).resolves.toBeUndefined();
  });
});
