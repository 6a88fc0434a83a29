import { describe, expect, it } from "vitest";
import { loadConfig } from "#lib/app/config";
import { createConnectAccess } from "#lib/app/connect-access";
import { LocalTokenVault } from "#lib/app/local-token-vault";
import { bindingOf, type PushUpkeepDeps, upkeepPush } from "#lib/app/push-upkeep";
import { findChannel } from "#lib/app/users";
import { ManualClock } from "#lib/core/clock";
import type { SourceRecord, UserRecord } from "#lib/core/records";
import { StoreError } from "#lib/store/errors";
import { MemoryStore } from "#lib/store/memory-store";
import { plainUser, statuslessContext } from "../../integration/app/statusless-context";

/**
 * A Google renewal whose record write fails (DynamoDB throttled past the SDK's retries). Google's
 * renewal is "watch a new channel, then stop the old one". Were the old one stopped before the
 * source's record is written, a failed write would leave the record naming a stopped channel,
 * and the new one, live at Google and bound, named by nothing: nothing would stop it or retire
 * its binding, so it would push (and authenticate) until it expired, a week later, next to the
 * channel the retry makes. So the old channel is stopped only once the record names the new one,
 * and a new channel the record does not name is stopped and its binding retired at once.
 */
const DAY = 86_400_000;
const MIN = 60_000;
const T0 = Date.UTC(2026, 3, 1, 9);
const KEY = { team: "T0DEMO", user: "U001" };
const API = "https://google.example";

/** A store whose next user write fails once armed. */
class FlakyStore extends MemoryStore {
  failNextUserWrite = false;
  override async putUser(user: UserRecord, expectedVersion: number | undefined) {
    if (this.failNextUserWrite) {
      this.failNextUserWrite = false;
      throw new StoreError("DynamoDB call failed: throttled", "dynamodb_failed");
    }
    return super.putUser(user, expectedVersion);
  }
}

/**
 * A Google calendar at its renewal, its channel "old-channel" open at Google and bound; the
 * renewal's channel will be "new-channel". `failWrite`: the record write after events.watch fails.
 */
async function renewal(failWrite: boolean) {
  const clock = new ManualClock(T0);
  const store = new FlakyStore();
  const ctx = statuslessContext({
    store,
    clock,
    tokens: new LocalTokenVault(Buffer.alloc(32, 3)),
  });
  const live = new Set<string>(["old-channel"]);
  /** For each channels.stop, the channel the stored record named when it came. */
  const recordedAtStop: (string | undefined)[] = [];
  const googleFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body = JSON.parse(String(init?.body ?? "{}")) as { id: string };
    if (url.pathname.endsWith("/events/watch")) {
      live.add(body.id);
      // The write of the record comes next: it fails.
      store.failNextUserWrite = failWrite;
      return Response.json({ id: body.id, resourceId: "res", expiration: String(T0 + 7 * DAY) });
    }
    if (url.pathname.endsWith("/channels/stop")) {
      recordedAtStop.push((await store.getUser(KEY))?.sources[0]?.push?.channelId);
      live.delete(body.id);
      return new Response(null, { status: 204 });
    }
    return new Response("not found", { status: 404 });
  }) as typeof fetch;
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
    fetch: googleFetch,
    readParameter: async () => "",
  });
  access.remember(KEY, "google-1", {
    accessToken: "access-token",
    expiresInS: 3600,
    refreshTokenSealed: "sealed-refresh-token",
  });
  const deps: PushUpkeepDeps = {
    ctx,
    config,
    access,
    signingSecret: async () => "s",
    newChannelId: () => "new-channel",
  };
  return { clock, store, ctx, live, recordedAtStop, source, deps };
}

describe("a Google renewal and its record write", () => {
  it("leaves open at Google only the channel the record names", async () => {
    const { clock, store, ctx, live, source, deps } = await renewal(true);

    const outcome = await upkeepPush(deps, KEY, source);
    expect(outcome.kind).toBe("failed");

    // What the record names is what is open at Google, and no other binding authenticates.
    const push = (await store.getUser(KEY))?.sources[0]?.push;
    if (push === undefined) throw new Error("the record lost its channel");
    clock.set(T0 + 11 * MIN);
    expect([...live]).toEqual([push.channelId]);
    const other = push.channelId === "new-channel" ? "old-channel" : "new-channel";
    expect(bindingOf(push)).not.toBe(other);
    expect(await findChannel(ctx, other, { openSecret: false })).toBeUndefined();
  });

  it("stops the old channel once the record names the new one; its pushes count for the grace", async () => {
    const { clock, store, ctx, live, recordedAtStop, source, deps } = await renewal(false);

    const outcome = await upkeepPush(deps, KEY, source);
    expect(outcome.kind).toBe("renewed");

    expect((await store.getUser(KEY))?.sources[0]?.push?.channelId).toBe("new-channel");
    // One channels.stop, of the old channel, made when the record already named the new one.
    expect(recordedAtStop).toEqual(["new-channel"]);
    expect([...live]).toEqual(["new-channel"]);
    // Pushes of the old channel already on their way are taken for 10 minutes, then refused.
    clock.set(T0 + 9 * MIN);
    expect(await findChannel(ctx, "old-channel", { openSecret: false })).toBeDefined();
    clock.set(T0 + 11 * MIN);
    expect(await findChannel(ctx, "old-channel", { openSecret: false })).toBeUndefined();
    expect(await findChannel(ctx, "new-channel", { openSecret: false })).toBeDefined();
  });
});
