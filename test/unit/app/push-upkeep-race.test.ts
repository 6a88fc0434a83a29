import { describe, expect, it } from "vitest";
import { findChannel } from "#lib/app/push/channels";
import { runUpkeep } from "#lib/app/push/schedule";
import { CHANNEL_RETIRE_GRACE_MS, stopPush } from "#lib/app/push/upkeep";
import { gate } from "../../support/gate";
import { googleAtRenewal, KEY, pushUpkeepFixture, T0 } from "../../support/push-upkeep-fixture";

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

/** Google's events.watch and channels.stop, with a gate on the watch's answer. */
function fakeGoogle() {
  const answered = gate();
  const arrived = gate();
  const live = new Set<string>(["old-channel"]);
  const fetchStub = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body = JSON.parse(String(init?.body ?? "{}")) as { id: string };
    if (url.pathname.endsWith("/events/watch")) {
      arrived.open();
      await answered.opened;
      live.add(body.id);
      return Response.json({ id: body.id, resourceId: "res-1", expiration: String(T0 + 7 * DAY) });
    }
    if (url.pathname.endsWith("/channels/stop")) {
      live.delete(body.id);
      return new Response(null, { status: 204 });
    }
    return new Response("not found", { status: 404 });
  }) as typeof fetch;
  return { fetchStub, live, watching: arrived.opened, release: answered.open };
}

describe("a renewal racing the calendar's removal", () => {
  it("leaves no channel open, no binding alive and no upkeep entry for the removed calendar", async () => {
    // A Google calendar whose 7-day channel is at its renewal (past 80 % of its lifetime).
    const source = googleAtRenewal();
    const google = fakeGoogle();
    const { clock, store, ctx, schedule, upkeep, deps, bind } = await pushUpkeepFixture({
      provider: "google",
      fetch: google.fetchStub,
      newChannelId: () => "new-channel",
      user: { since: T0 - 6 * DAY, sources: [source] },
      remembered: { sourceId: "google-1", refreshTokenSealed: "sealed-refresh-token" },
    });
    await bind("old-channel", "google-1", "google");
    await schedule.set({ key: KEY, sourceId: "google-1", dueAt: T0, failures: 0 });

    // The tick's upkeep message: the worker claims the entry and asks Google for a new channel.
    const renewal = runUpkeep(deps, KEY, "google-1", {
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
