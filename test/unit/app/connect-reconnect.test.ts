import { describe, expect, it } from "vitest";
import { openRefreshToken, sealRefreshToken } from "#lib/app/accounts/access";
import { connectProviderOfKind } from "#lib/app/accounts/providers";
import { completeConnect } from "#lib/app/connect/flow";
import { findChannel, putChannel } from "#lib/app/push/channels";
import { RENEW_AT } from "#lib/app/push/plan";
import type { SourceRecord } from "#lib/core/records";
import { plainUser } from "../../integration/app/statusless-context";
import { GOOGLE_API as API, KEY, pushUpkeepFixture, T0 } from "../../support/push-upkeep-fixture";

/**
 * Connecting Google again (the account had to be reconnected, or the person picked another
 * Google account at the consent) keeps the source and its id, but not what the previous grant
 * made: the channel its push record names was opened with that grant, on the calendar of the
 * account connected then. Kept, the upkeep found nothing to do while it had not expired, so no
 * channel watched the calendar just connected until the renewal (up to days later): its changes
 * showed only at the 6-hourly safety-net read.
 */
const DAY = 86_400_000;
const TOKEN_URL = "https://oauth.google.example/token";
const CALLBACK = "https://statuspilot.example/connect/google/callback";
const NEW_LIFETIME = 7 * DAY;

/** The account-A channel of a source connected two days ago. */
const channelA = {
  channelId: "channel-a",
  resourceId: "res-a",
  createdAt: T0 - 2 * DAY,
  expiresAt: T0 + 5 * DAY,
};

/** The Google source connected two days ago with account A's grant, its channel `channelA`. */
const connectedWithA =
  (more: Partial<SourceRecord> = {}) =>
  (sealedA: string): SourceRecord => ({
    id: "google-1",
    kind: "google",
    url: `${API}/calendar/v3/calendars/primary`,
    refreshTokenSealed: sealedA,
    push: channelA,
    ...more,
  });

interface GoogleCalls {
  /** The Authorization header of each events.watch. */
  watchedWith: string[];
  /** Each channels.stop: the channel it names and the Authorization header. */
  stopped: Array<{ id: string; auth: string }>;
  /** The grant_type of each token request, with its refresh token when it has one. */
  tokenGrants: string[];
}

/**
 * A Google for two accounts: the consent code is account B's; account A's refresh token still
 * works (and, as a rotating provider would, comes back with a new one) unless `oldGrant` says
 * otherwise; events.watch and channels.stop answer as `watch`, `stop` say.
 */
function twoAccountGoogle(
  opts: { oldGrant?: "works" | "refused"; watch?: number; stop?: number } = {},
): { fetch: typeof fetch; calls: GoogleCalls } {
  const calls: GoogleCalls = { watchedWith: [], stopped: [], tokenGrants: [] };
  const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const auth = new Headers(init?.headers).get("authorization") ?? "";
    if (url.href === TOKEN_URL) {
      const form = new URLSearchParams(String(init?.body ?? ""));
      const refresh = form.get("refresh_token");
      calls.tokenGrants.push(refresh === null ? String(form.get("grant_type")) : refresh);
      if (refresh === null) {
        return Response.json({
          access_token: "access-of-account-b",
          refresh_token: "refresh-of-account-b",
          expires_in: 3600,
        });
      }
      if (refresh === "refresh-of-account-a" && opts.oldGrant !== "refused") {
        return Response.json({
          access_token: "access-of-account-a",
          refresh_token: "rotated-refresh-of-account-a",
          expires_in: 3600,
        });
      }
      return Response.json({ error: "invalid_grant" }, { status: 400 });
    }
    if (url.pathname.endsWith("/events/watch")) {
      calls.watchedWith.push(auth);
      if (opts.watch !== undefined) return new Response("no", { status: opts.watch });
      const body = JSON.parse(String(init?.body ?? "{}")) as { id: string };
      return Response.json({
        id: body.id,
        resourceId: "res",
        expiration: String(T0 + NEW_LIFETIME),
      });
    }
    if (url.pathname.endsWith("/channels/stop")) {
      const body = JSON.parse(String(init?.body ?? "{}")) as { id: string };
      calls.stopped.push({ id: body.id, auth });
      return new Response(null, { status: opts.stop ?? 204 });
    }
    return new Response("not found", { status: 404 });
  }) as typeof fetch;
  return { fetch: fetchFn, calls };
}

async function setup(googleFetch: typeof fetch, source: (sealedA: string) => SourceRecord) {
  const { ctx, store, clock, schedule, accessDeps, upkeep, deps } = await pushUpkeepFixture({
    provider: "google",
    fetch: googleFetch,
    newChannelId: () => "channel-b",
    env: { GOOGLE_TOKEN_URL: TOKEN_URL },
  });
  const sealedA = await sealRefreshToken(ctx, KEY, "refresh-of-account-a");
  await store.putUser(plainUser(KEY, T0 - 2 * DAY, [source(sealedA)]), undefined);
  const google = connectProviderOfKind("google");
  if (google === undefined) throw new Error("no Google provider");
  const flow = { ...accessDeps, upkeep, scheduled: deps };
  /** The person connects Google again (consent given, the code comes back). */
  const connectAgain = () =>
    completeConnect(flow, google, KEY, { code: "code-of-account-b", redirectUri: CALLBACK });
  const stored = async () => {
    const found = (await store.getUser(KEY))?.sources.find((s) => s.id === "google-1");
    if (found === undefined) throw new Error("source gone");
    return found;
  };
  return { ctx, clock, schedule, connectAgain, stored };
}

describe("connecting Google again", () => {
  it("watches the calendar of the grant just made", async () => {
    const google = twoAccountGoogle({ oldGrant: "refused" });
    // Connected two days ago (account A): a live channel, flagged "reconnect" since.
    const { connectAgain } = await setup(
      google.fetch,
      connectedWithA({ reconnectSince: T0 - DAY, cursor: "sync-token-of-account-a" }),
    );

    const outcome = await connectAgain();
    expect(outcome.sourceId).toBe("google-1");

    // A channel was opened with the new grant: pushes now come from the calendar just connected.
    expect(google.calls.watchedWith).toEqual(["Bearer access-of-account-b"]);
    // Account A's grant was refused already: nothing can stop its channel, and nothing tries.
    expect(google.calls.tokenGrants).toEqual(["authorization_code"]);
    expect(google.calls.stopped).toEqual([]);
  });

  it("another account: the old channel is stopped with the old grant, and its binding retired", async () => {
    const google = twoAccountGoogle();
    // Connected two days ago (account A), its grant still good: the person picks account B.
    const { ctx, schedule, connectAgain, stored } = await setup(
      google.fetch,
      connectedWithA({ cursor: "sync-token-of-account-a" }),
    );
    await putChannel(ctx, "channel-a", { key: KEY, sourceId: "google-1", kind: "google" });

    const outcome = await connectAgain();

    expect(outcome).toMatchObject({ sourceId: "google-1", created: false });
    expect(outcome.push).toMatchObject({ kind: "created", channelId: "channel-b" });
    expect(google.calls.watchedWith).toEqual(["Bearer access-of-account-b"]);
    // Account A's channel is stopped, with account A's access (account B's cannot stop it)…
    expect(google.calls.stopped).toEqual([{ id: "channel-a", auth: "Bearer access-of-account-a" }]);
    // …and its pushes are refused from now on, even those already on the way.
    expect(await findChannel(ctx, "channel-a", { openSecret: false })).toBeUndefined();
    expect(await findChannel(ctx, "channel-b", { openSecret: false })).toBeDefined();
    // The source holds account B's grant and channel (account A's rotated token was dropped).
    const source = await stored();
    expect(await openRefreshToken(ctx, KEY, source.refreshTokenSealed ?? "")).toBe(
      "refresh-of-account-b",
    );
    expect(source.push?.channelId).toBe("channel-b");
    expect(source.cursor).toBeUndefined();
    // The next upkeep is the new channel's renewal, at RENEW_AT of its lifetime.
    expect(await schedule.dueBy(T0 + RENEW_AT * NEW_LIFETIME)).toEqual([
      { key: KEY, sourceId: "google-1", dueAt: T0 + RENEW_AT * NEW_LIFETIME },
    ]);
    expect(await schedule.dueBy(T0 + RENEW_AT * NEW_LIFETIME - 1)).toEqual([]);
  });

  it("a stop that fails, or an old grant refused by then, never fails nor flags the new connection", async () => {
    for (const fault of [{ oldGrant: "refused" }, { stop: 500 }] as const) {
      const google = twoAccountGoogle(fault);
      const { connectAgain, stored } = await setup(google.fetch, connectedWithA());
      const outcome = await connectAgain();
      expect(outcome.push).toMatchObject({ kind: "created", channelId: "channel-b" });
      // The old grant was asked for (and refused, or its stop failed): B's connection stands.
      expect(google.calls.tokenGrants).toEqual(["authorization_code", "refresh-of-account-a"]);
      const source = await stored();
      expect(source.reconnectSince).toBeUndefined();
      expect(source.push?.channelId).toBe("channel-b");
    }
  });

  it("a channel that expired already is not stopped", async () => {
    const google = twoAccountGoogle();
    const { connectAgain } = await setup(
      google.fetch,
      connectedWithA({ push: { ...channelA, expiresAt: T0 } }),
    );
    await connectAgain();
    expect(google.calls.tokenGrants).toEqual(["authorization_code"]);
    expect(google.calls.stopped).toEqual([]);
  });

  it("a first channel that fails to open is retried by the upkeep, from an entry that is due", async () => {
    const google = twoAccountGoogle({ watch: 500 });
    const { schedule, connectAgain, stored } = await setup(google.fetch, connectedWithA());
    const outcome = await connectAgain();
    expect(outcome.push).toMatchObject({ kind: "failed" });
    // No channel recorded (account A's is gone from the record), and the retry is scheduled.
    expect((await stored()).push).toBeUndefined();
    const due = await schedule.dueBy(T0 + DAY);
    expect(due.map((d) => d.sourceId)).toEqual(["google-1"]);
  });
});

describe("connecting for the first time", () => {
  it("has its first upkeep due before it runs, so a connect that dies midway is taken up by the tick", async () => {
    const google = twoAccountGoogle();
    const { schedule, connectAgain: connect } = await setup(google.fetch, () => ({
      id: "ics-1",
      kind: "ics",
      url: "https://cal.example/a.ics",
    }));
    const claimedAt: number[] = [];
    // The connect dies as its first upkeep is claimed (the process ends, a store call fails).
    schedule.claim = async (_key, _sourceId, now) => {
      claimedAt.push(now);
      throw new Error("the connect died here");
    };
    await expect(connect()).rejects.toThrow("the connect died here");
    expect(claimedAt).toEqual([T0]);
    // The new source's upkeep is due already: the tick queues it within the minute.
    expect((await schedule.dueBy(T0)).map((d) => d.sourceId)).toEqual([
      expect.stringMatching(/^google-/),
    ]);
  });
});
