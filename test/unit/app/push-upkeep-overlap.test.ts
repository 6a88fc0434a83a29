import { describe, expect, it } from "vitest";
import type { SyncMessage } from "#lib/app/contracts";
import { findChannel } from "#lib/app/push/channels";
import { type PushScheduleDeps, runUpkeep } from "#lib/app/push/schedule";
import type { Queue, SendOptions } from "#lib/core/ports";
import type { SourceRecord } from "#lib/core/records";
import { gate } from "../../support/gate";
import {
  GOOGLE_API,
  GRAPH_API,
  KEY,
  pushUpkeepFixture,
  T0,
} from "../../support/push-upkeep-fixture";

/**
 * A channel granted 90 s (issue 28 §12) is renewed 30 s before its expiry. A claim on its
 * upkeep lasts a third of the time left (10 s here), not 5 minutes, and before the renewal the
 * worker queues an upkeep for the claim's end: a worker that dies mid-renewal is taken over
 * while the channel still lives (the minute tick could come after its expiry). A claim that runs
 * out while its worker is merely slow lets a second worker renew the same channel at once; the
 * record then keeps exactly one of the two channels and the other is stopped again (Google), or
 * left alone when both renewed the one subscription (Graph's PATCH).
 */
const S = 1000;

/** A provider's HTTP API whose first renewal call waits for `release()` before it answers. */
function gatedProvider(answer: (url: URL, body: { id?: string }, n: number) => Response) {
  const calls: string[] = [];
  const held = gate();
  const arrived = gate();
  let renewals = 0;
  const fetchStub = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? "GET";
    const body = JSON.parse(String(init?.body ?? "{}")) as { id?: string };
    const renewal = url.pathname.endsWith("/events/watch") || method === "PATCH";
    const n = renewal ? ++renewals : 0;
    if (n === 1) {
      arrived.open();
      await held.opened;
    }
    calls.push(`${method} ${url.pathname}${body.id !== undefined ? ` ${body.id}` : ""}`);
    return answer(url, body, n);
  }) as typeof fetch;
  return { fetchStub, calls, arriving: arrived.opened, release: held.open };
}

/** A 90 s channel made at T0 - 60 s: its renewal is due at T0, 30 s before its expiry. */
const source90 = (kind: "google" | "graph"): SourceRecord => ({
  id: `${kind}-1`,
  kind,
  url: kind === "google" ? `${GOOGLE_API}/calendar/v3/calendars/primary` : `${GRAPH_API}/me`,
  refreshTokenSealed: "sealed",
  push: {
    // Graph's own subscription id; its pushes are bound under our channel id (its clientState).
    ...(kind === "google"
      ? { channelId: "old", resourceId: "res-0" }
      : { channelId: "sub-1", bindingId: "old" }),
    createdAt: T0 - 60 * S,
    expiresAt: T0 + 30 * S,
  },
});

async function setup(kind: "google" | "graph", fetchStub: typeof fetch) {
  let ids = 0;
  const fixture = await pushUpkeepFixture({
    provider: kind,
    fetch: fetchStub,
    newChannelId: () => `new-${++ids}`,
    user: { since: T0 - 120 * S, sources: [source90(kind)] },
    remembered: { sourceId: `${kind}-1`, refreshTokenSealed: "sealed" },
  });
  await fixture.bind("old", `${kind}-1`, kind);
  await fixture.schedule.set({ key: KEY, sourceId: `${kind}-1`, dueAt: T0, failures: 0 });
  const sent: Array<{ reason: string; delaySeconds: number }> = [];
  const syncQueue: Queue<SyncMessage> = {
    send: async (m: SyncMessage, opts?: SendOptions) =>
      void sent.push({ reason: m.reason, delaySeconds: opts?.delaySeconds ?? 0 }),
  };
  const deps: PushScheduleDeps = { ...fixture.deps, syncQueue };
  const bound = async (channelId: string) =>
    (await findChannel(fixture.ctx, channelId, { openSecret: false })) !== undefined;
  return { ...fixture, deps, sent, bound };
}

const googleAnswer = (live: Set<string>) => (url: URL, body: { id?: string }) => {
  if (url.pathname.endsWith("/events/watch") && body.id !== undefined) {
    live.add(body.id);
    return Response.json({ id: body.id, resourceId: "res-1", expiration: String(T0 + 100 * S) });
  }
  if (url.pathname.endsWith("/channels/stop") && body.id !== undefined) {
    live.delete(body.id);
    return new Response(null, { status: 204 });
  }
  return new Response("not found", { status: 404 });
};

describe("the upkeep of a channel granted 90 s", () => {
  it("claims it for a third of the time left, having queued its own takeover first", async () => {
    const live = new Set(["old"]);
    const google = gatedProvider(googleAnswer(live));
    const { clock, deps, sent } = await setup("google", google.fetchStub);

    // The worker renews; Google does not answer (the worker dies there, as far as anyone knows).
    void runUpkeep(deps, KEY, "google-1", { readNewChannel: true });
    await google.arriving;
    // Its takeover went out before the renewal call: an upkeep landing when the claim ends.
    expect(sent).toEqual([{ reason: "upkeep", delaySeconds: 10 }]);
    clock.set(T0 + 10 * S - 1);
    expect(await runUpkeep(deps, KEY, "google-1", { readNewChannel: true })).toEqual({
      kind: "busy",
    });
    // 10 s on, 20 s before the expiry, the takeover renews the channel.
    clock.set(T0 + 10 * S);
    const takeover = await runUpkeep(deps, KEY, "google-1", { readNewChannel: true });
    expect(takeover).toMatchObject({ kind: "renewed", channelId: "new-2" });
    expect([...live].sort()).toEqual(["new-2"]);
  });

  it("a Google renewal overtaken by another worker's: one channel stays open, the record's", async () => {
    const live = new Set(["old"]);
    const google = gatedProvider(googleAnswer(live));
    const { clock, store, deps, schedule, bound } = await setup("google", google.fetchStub);

    const slow = runUpkeep(deps, KEY, "google-1", { readNewChannel: true });
    await google.arriving;
    // The slow worker's claim runs out; another takes over and renews.
    clock.set(T0 + 10 * S);
    const fast = await runUpkeep(deps, KEY, "google-1", { readNewChannel: true });
    expect(fast).toMatchObject({ kind: "renewed", channelId: "new-2" });
    // Now Google answers the slow worker's watch: its channel is stopped again, not recorded.
    google.release();
    expect(await slow).toEqual({ kind: "superseded" });

    expect([...live].sort()).toEqual(["new-2"]);
    expect((await store.getUser(KEY))?.sources[0]?.push).toMatchObject({ channelId: "new-2" });
    expect(await bound("new-1")).toBe(false);
    expect(await bound("new-2")).toBe(true);
    // The entry stays the one the renewal that counts wrote: its channel's renewal (made at
    // T0 + 10 s, expiring at T0 + 100 s: renewed 30 s before).
    const renewAt = T0 + 70 * S;
    expect(await schedule.dueBy(renewAt - 1)).toEqual([]);
    expect(await schedule.dueBy(renewAt)).toEqual([
      { key: KEY, sourceId: "google-1", dueAt: renewAt },
    ]);
  });

  it("a slow renewal refused after another worker's renewal counts no failure against it", async () => {
    const live = new Set(["old"]);
    const answer = googleAnswer(live);
    const google = gatedProvider((url, body, n) =>
      n === 1
        ? Response.json({ error: { code: 429, message: "Rate Limit Exceeded" } }, { status: 429 })
        : answer(url, body),
    );
    const { clock, store, deps, schedule } = await setup("google", google.fetchStub);

    const slow = runUpkeep(deps, KEY, "google-1", { readNewChannel: true });
    await google.arriving;
    clock.set(T0 + 10 * S);
    expect(await runUpkeep(deps, KEY, "google-1", { readNewChannel: true })).toMatchObject({
      kind: "renewed",
    });
    google.release();
    expect(await slow).toEqual({ kind: "superseded" });

    const push = (await store.getUser(KEY))?.sources[0]?.push;
    expect(push).toMatchObject({ channelId: "new-2" });
    expect(push?.failures).toBeUndefined();
    // No retry was scheduled over the renewal of the channel that lives.
    expect(await schedule.dueBy(T0 + 70 * S - 1)).toEqual([]);
  });

  it("two Graph PATCHes of one subscription at once: it stays, nothing is deleted", async () => {
    const graph = gatedProvider((_url, _body, n) =>
      Response.json({
        id: "sub-1",
        expirationDateTime: new Date(T0 + (n === 1 ? 90 : 100) * S).toISOString(),
      }),
    );
    const { clock, store, deps, bound } = await setup("graph", graph.fetchStub);

    const slow = runUpkeep(deps, KEY, "graph-1", { readNewChannel: true });
    await graph.arriving;
    clock.set(T0 + 10 * S);
    expect(await runUpkeep(deps, KEY, "graph-1", { readNewChannel: true })).toMatchObject({
      kind: "renewed",
      channelId: "sub-1",
    });
    graph.release();
    expect(await slow).toEqual({ kind: "superseded" });

    expect(graph.calls).toEqual([
      "PATCH /v1.0/subscriptions/sub-1",
      "PATCH /v1.0/subscriptions/sub-1",
    ]);
    expect((await store.getUser(KEY))?.sources[0]?.push).toMatchObject({
      channelId: "sub-1",
      bindingId: "old",
      expiresAt: T0 + 100 * S,
    });
    expect(await bound("old")).toBe(true);
  });
});
