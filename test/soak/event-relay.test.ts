import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type EventRelay, startEventRelay } from "#bench/soak/event-relay";
import type { Rng } from "#bench/soak/scenario";
import { SoakScheduler } from "#bench/soak/scheduler";
import { ManualClock } from "#lib/core/clock";

const T0 = Date.UTC(2026, 2, 9, 9, 0);

interface Arrival {
  at: number;
  body: string;
  signature: string | undefined;
  timestamp: string | undefined;
}

/** The events endpoint stand-in: records what arrives and answers with the next status. */
async function startEndpoint(clock: ManualClock, statuses: number[] = []) {
  const arrivals: Arrival[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      arrivals.push({
        at: clock.now(),
        body: Buffer.concat(chunks).toString("utf8"),
        signature: req.headers["x-svc-signature"] as string | undefined,
        timestamp: req.headers["x-svc-request-timestamp"] as string | undefined,
      });
      res.writeHead(statuses.shift() ?? 200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/service/events`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A random source that holds the deliveries listed, by position, for the given fraction. */
const scripted = (holds: boolean[], fraction: number): Rng => ({
  next: () => fraction,
  int: (min) => min,
  pick: (items) => items[0] as (typeof items)[number],
  chance: () => holds.shift() ?? false,
});

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setUp(holds: boolean[], fraction: number, statuses: number[] = []) {
  const clock = new ManualClock(T0);
  let relay: EventRelay | undefined;
  const scheduler = new SoakScheduler({
    clock,
    onError: (e) => {
      throw e;
    },
    busy: () => relay?.inFlight() ?? 0,
  });
  const endpoint = await startEndpoint(clock, statuses);
  relay = await startEventRelay({
    clock,
    scheduler,
    target: endpoint.url,
    rng: scripted(holds, fraction),
    fetch,
  });
  closers.push(endpoint.close, relay.close);
  relay.setHold({ rate: 0.5, maxMs: 180_000 });
  const deliver = async (id: string, event?: Record<string, unknown>) => {
    const res = await fetch(relay.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-svc-request-timestamp": String(Math.floor(clock.now() / 1000)),
        "x-svc-signature": `v0=${id}`,
      },
      body: JSON.stringify({ event_id: id, ...(event ? { event } : {}) }),
    });
    return res.status;
  };
  return { clock, scheduler, endpoint, relay, deliver };
}

describe("event relay", () => {
  it("acknowledges a held delivery at once and releases it later in simulated time, after one sent after it", async () => {
    // Prepare: the first delivery is held for half of the 3 minutes, the second passes.
    const { scheduler, endpoint, relay, deliver } = await setUp([true, false], 0.5);
    // Act
    const first = await deliver("Ev1");
    const second = await deliver("Ev2");
    const beforeRelease = endpoint.arrivals.map((a) => JSON.parse(a.body).event_id);
    await scheduler.advanceTo(T0 + 180_000);
    // Assess
    expect([first, second]).toEqual([200, 200]);
    expect(beforeRelease).toEqual(["Ev2"]);
    expect(endpoint.arrivals.map((a) => [JSON.parse(a.body).event_id, a.at - T0])).toEqual([
      ["Ev2", 0],
      ["Ev1", 90_000],
    ]);
    expect(endpoint.arrivals[1]).toMatchObject({
      signature: "v0=Ev1",
      timestamp: String(Math.floor(T0 / 1000)),
    });
    expect(relay.stats()).toMatchObject({ passed: 1, held: 1, released: 1, lost: 0 });
    expect(relay.stats().maxHeldMs).toBe(90_000);
  });

  it("passes the endpoint's own answer back for a delivery it does not hold", async () => {
    // Prepare
    const { deliver, relay } = await setUp([false], 0, [500]);
    // Act
    const status = await deliver("Ev1");
    // Assess
    expect(status).toBe(500);
    expect(relay.stats()).toMatchObject({ passed: 1, held: 0 });
  });

  it("tries a refused release once more and counts it lost when refused again", async () => {
    // Prepare: held with no delay, refused twice by the endpoint.
    const { scheduler, endpoint, relay, deliver } = await setUp([true], 0, [503, 503]);
    // Act
    await deliver("Ev1");
    await scheduler.advanceTo(T0 + 120_000);
    // Assess
    expect(endpoint.arrivals.map((a) => a.at - T0)).toEqual([0, 30_000]);
    expect(relay.stats()).toMatchObject({ held: 1, released: 0, lost: 1 });
  });

  it("loses the user's clear it was told to lose, and its duplicate, but passes their set and other users' clears", async () => {
    // Prepare
    const { endpoint, relay, deliver } = await setUp([], 0);
    relay.setHold({ rate: 0, maxMs: 0 });
    const change = (user: string, text: string, emoji: string) => ({
      type: "user_change",
      user: { id: user, profile: { status_text: text, status_emoji: emoji } },
    });
    relay.lose({ user: "U0005", at: T0, cleared: true });
    // Act
    const answers = [
      await deliver("EvSet", change("U0005", "Lunch", ":sandwich:")),
      await deliver("EvOther", change("U0006", "", "")),
      await deliver("EvClear", change("U0005", "", "")),
      await deliver("EvClear", change("U0005", "", "")),
      await deliver("EvLater", change("U0005", "", "")),
    ];
    // Assess
    expect(answers).toEqual([200, 200, 200, 200, 200]);
    expect(endpoint.arrivals.map((a) => JSON.parse(a.body).event_id)).toEqual([
      "EvSet",
      "EvOther",
      "EvLater",
    ]);
    expect(relay.stats()).toMatchObject({ passed: 3, discarded: 1 });
  });

  it("holds nothing once the hold rate is set to zero", async () => {
    // Prepare
    const { endpoint, relay, deliver } = await setUp([true, true], 0.5);
    relay.setHold({ rate: 0, maxMs: 0 });
    // Act
    await deliver("Ev1");
    // Assess
    expect(endpoint.arrivals).toHaveLength(1);
    expect(relay.stats().held).toBe(0);
  });
});
