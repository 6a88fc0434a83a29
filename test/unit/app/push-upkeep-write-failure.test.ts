import { describe, expect, it } from "vitest";
import { findChannel } from "#lib/app/push/channels";
import { bindingOf, upkeepPush } from "#lib/app/push/upkeep";
import type { UserRecord } from "#lib/core/records";
import { StoreError } from "#lib/store/errors";
import { MemoryStore } from "#lib/store/memory-store";
import { googleAtRenewal, KEY, pushUpkeepFixture, T0 } from "../../support/push-upkeep-fixture";

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
  const store = new FlakyStore();
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
  const source = googleAtRenewal();
  const { clock, ctx, upkeep, bind } = await pushUpkeepFixture({
    provider: "google",
    store,
    fetch: googleFetch,
    newChannelId: () => "new-channel",
    user: { since: T0 - 6 * DAY, sources: [source] },
    remembered: { sourceId: "google-1", refreshTokenSealed: "sealed-refresh-token" },
  });
  await bind("old-channel", "google-1", "google");
  return { clock, store, ctx, live, recordedAtStop, source, deps: upkeep };
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
