import { describe, expect, it } from "vitest";
import { enqueueDueUpkeeps, runUpkeep } from "#lib/app/push/schedule";
import { ManualClock } from "#lib/core/clock";
import type { SourceRecord, UserRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { MemoryStore } from "#lib/store/memory-store";
import { GRAPH_API as GRAPH, KEY, pushUpkeepFixture, T0 } from "../../support/push-upkeep-fixture";

/**
 * Graph's `subscriptionRemoved` lifecycle notification while another worker holds the
 * source's upkeep claim (a duplicate of the tick's message, or one read from the index before
 * the last upkeep's write showed). The notification's message records the request, meets the
 * claim ("busy") and is acked; the other worker, which read the source before the request,
 * finds nothing to do and schedules the next upkeep at the renewal, days away. The poll's
 * repair (every 15 minutes, since the channel shows lapsed) must still recreate it, though that
 * entry holds a later instant: it is no retry backing off.
 */
const MIN = 60_000;
const HOUR = 60 * MIN;

/** getUser answers as stored, but the held call returns only when released (a slow worker). */
class SlowReadStore extends MemoryStore {
  hold: Promise<void> | undefined;
  override async getUser(key: UserKey): Promise<UserRecord | undefined> {
    const read = await super.getUser(key);
    const hold = this.hold;
    this.hold = undefined;
    if (hold !== undefined) await hold;
    return read;
  }
}

describe("a subscriptionRemoved meeting another worker's upkeep claim", () => {
  // lib/app/push/schedule.ts runUpkeep: a repair once backed off whenever the entry
  // held a later instant, even a plain renewal (failures 0), not a retry; so the subscription
  // waited for the renewal, days away. A repair now backs off only for a retry that is waiting.
  it("recreates the subscription within the hour", async () => {
    const clock = new ManualClock(T0);
    const store = new SlowReadStore();
    const subscribed: string[] = [];
    const graphFetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const method = init?.method ?? "GET";
      if (method === "POST" && url.pathname.endsWith("/subscriptions")) {
        subscribed.push(url.pathname);
        return Response.json(
          {
            id: `sub-${subscribed.length + 1}`,
            expirationDateTime: new Date(clock.now() + 70 * HOUR).toISOString(),
          },
          { status: 201 },
        );
      }
      if (method === "DELETE") return new Response(null, { status: 204 });
      return new Response("{}", { status: 404 });
    }) as typeof fetch;
    // A live Graph subscription, a day into its ~3 days: its renewal is ~1.4 days away.
    const source: SourceRecord = {
      id: "graph-1",
      kind: "graph",
      url: `${GRAPH}/me/calendar`,
      refreshTokenSealed: "sealed-refresh-token",
      push: {
        channelId: "sub-1",
        bindingId: "bind-1",
        createdAt: T0 - 24 * HOUR,
        expiresAt: T0 + 46 * HOUR,
      },
    };
    let ids = 0;
    const { schedule, deps, sent } = await pushUpkeepFixture({
      provider: "graph",
      store,
      clock,
      fetch: graphFetch,
      newChannelId: () => `bind-new-${++ids}`,
      user: { since: T0 - 24 * HOUR, sources: [source] },
      remembered: {
        sourceId: "graph-1",
        refreshTokenSealed: "sealed-refresh-token",
        expiresInS: 24 * 3600,
      },
    });
    // The entry shows due (the index not yet showing the last upkeep's write, or a duplicate).
    await schedule.set({ key: KEY, sourceId: "graph-1", dueAt: T0, failures: 0 });

    // Worker A claims the entry and reads the source (before the notification), slowly.
    let release: () => void = () => {};
    store.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const workerA = runUpkeep(deps, KEY, "graph-1", { readNewChannel: true });
    await new Promise((resolve) => setTimeout(resolve, 0));
    // Graph removes the subscription and says so: the hook queues the lifecycle upkeep.
    const lifecycle = { request: "recreate" as const, channelId: "sub-1" };
    const runLifecycle = () =>
      runUpkeep(deps, KEY, "graph-1", { upkeep: lifecycle, readNewChannel: true }).then(
        () => "done",
        () => "redeliver",
      );
    const first = await runLifecycle();
    release();
    await workerA;

    // The next hour as the system runs it: the tick's due upkeeps each minute, the poll's
    // repair each 15 minutes (the channel shows lapsed), the lifecycle message again if it
    // asked to be delivered again.
    let redeliver = first === "redeliver";
    for (let minute = 1; minute <= 60 && subscribed.length === 0; minute++) {
      clock.set(T0 + minute * MIN);
      sent.length = 0;
      await enqueueDueUpkeeps(deps);
      for (const m of sent.splice(0)) {
        await runUpkeep(deps, KEY, m.sourceId, { readNewChannel: true });
      }
      if (redeliver && minute % 5 === 0) redeliver = (await runLifecycle()) === "redeliver";
      if (minute % 15 === 0) {
        await runUpkeep(deps, KEY, "graph-1", { upkeep: { repair: true }, readNewChannel: true });
      }
    }
    expect(subscribed.length).toBe(1);
  });
});
