import { describe, expect, it } from "vitest";
import { findChannel } from "#lib/app/push/channels";
import { upkeepPush } from "#lib/app/push/upkeep";
import type { SourcePush, SourceRecord } from "#lib/core/records";
import { GRAPH_API as GRAPH, KEY, pushUpkeepFixture, T0 } from "../../support/push-upkeep-fixture";

/**
 * A Graph subscription made by the previous release is recorded with Graph's subscription id as
 * `channelId` and no `bindingId`; its binding is under our own channel id (its clientState's),
 * which the record does not name. When such a subscription is replaced (a recreate), its binding
 * retires after the grace like any replaced one, found through the user's channels; when Graph
 * renews it in place (PATCH keeps its clientState), its binding stays.
 */
const DAY = 86_400_000;
const MIN = 60_000;

async function legacyGraph(push: SourcePush) {
  const calls: string[] = [];
  const graphFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    calls.push(`${init?.method ?? "GET"} ${url.pathname}`);
    const expirationDateTime = new Date(T0 + 6 * DAY).toISOString();
    if (init?.method === "POST") return Response.json({ id: "graph-sub-2", expirationDateTime });
    if (init?.method === "PATCH") return Response.json({ id: "graph-sub-1", expirationDateTime });
    return new Response(null, { status: 204 });
  }) as typeof fetch;
  const source: SourceRecord = {
    id: "graph-1",
    kind: "graph",
    url: `${GRAPH}/me/calendar`,
    refreshTokenSealed: "sealed",
    push,
  };
  const { clock, store, ctx, upkeep, bind } = await pushUpkeepFixture({
    provider: "graph",
    fetch: graphFetch,
    newChannelId: () => "ours-2",
    user: { since: T0 - 6 * DAY, sources: [source] },
    remembered: { sourceId: "graph-1", refreshTokenSealed: "sealed" },
  });
  // Its binding, under our own id, as the previous release bound it; and another user's.
  await bind("ours-1", "graph-1", "graph");
  await bind("theirs-1", "graph-1", "graph", { team: KEY.team, user: "U002" });
  const bound = async (channelId: string) =>
    (await findChannel(ctx, channelId, { openSecret: false })) !== undefined;
  return { clock, store, calls, source, deps: upkeep, bound };
}

describe("a Graph subscription recorded by the previous release", () => {
  it("replaced by a recreate: its binding retires after the grace, the new one stays", async () => {
    // Expired: recreated.
    const { clock, store, calls, source, deps, bound } = await legacyGraph({
      channelId: "graph-sub-1",
      createdAt: T0 - 7 * DAY,
      expiresAt: T0 - MIN,
    });

    const outcome = await upkeepPush(deps, KEY, source);

    expect(outcome.kind).toBe("recreated");
    expect((await store.getUser(KEY))?.sources[0]?.push).toMatchObject({
      channelId: "graph-sub-2",
      bindingId: "ours-2",
    });
    expect(calls).toEqual(["POST /v1.0/subscriptions", "DELETE /v1.0/subscriptions/graph-sub-1"]);
    clock.set(T0 + 9 * MIN);
    expect(await bound("ours-1")).toBe(true);
    clock.set(T0 + 11 * MIN);
    expect(await bound("ours-1")).toBe(false);
    expect(await bound("ours-2")).toBe(true);
    // Another user's binding is no business of this source's.
    expect(await bound("theirs-1")).toBe(true);
  });

  it("renewed in place by a PATCH: its binding keeps authenticating", async () => {
    // Past 80 % of its lifetime: renewed.
    const { clock, calls, source, deps, bound } = await legacyGraph({
      channelId: "graph-sub-1",
      createdAt: T0 - 6 * DAY,
      expiresAt: T0 + DAY,
    });

    const outcome = await upkeepPush(deps, KEY, source);

    expect(outcome.kind).toBe("renewed");
    expect(calls).toEqual(["PATCH /v1.0/subscriptions/graph-sub-1"]);
    clock.set(T0 + 11 * MIN);
    expect(await bound("ours-1")).toBe(true);
    // The binding made for a new subscription that never came authenticates nothing.
    expect(await bound("ours-2")).toBe(false);
  });
});
