import { afterEach, describe, expect, it } from "vitest";
import {
  addGoogleEvent,
  connectGoogle,
  deliverPushes,
  type GoogleE2e,
  googleChannels,
  googleFaults,
  installAs,
  startGoogleE2e,
} from "./google-support";
import { advance, nowOf, profileOf } from "./support";

/**
 * The safety net behind a live Google channel, over HTTP on the stack's hand-moved clock: the
 * poll reads a push-backed calendar only once every 6 hours (not at every 15-minute visit), and
 * that read is what finds a change no push announced (the channel went quiet): the channel is
 * recreated and the change shows.
 */
const MIN = 60_000;
const H = 60 * MIN;
const T0 = Date.parse("2026-03-03T06:00:00.000Z");
let e: GoogleE2e | undefined;
const realFetch = globalThis.fetch;
afterEach(async () => {
  globalThis.fetch = realFetch;
  await e?.close();
  e = undefined;
});

describe("a push-backed Google calendar's safety net", () => {
  it("is read about once in 6 hours, and that read recreates a channel gone quiet", async () => {
    // Prepare: Calendar API reads (events.list) counted from here on.
    let reads = 0;
    globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const method = init?.method ?? (input instanceof Request ? input.method : "GET");
      if (method === "GET" && /\/calendar\/v3\/calendars\/[^/]+\/events$/.test(url.pathname)) {
        reads++;
      }
      return realFetch(input, init);
    }) as typeof fetch;
    e = await startGoogleE2e({ manualAt: T0 });
    await installAs(e, "U001");
    expect((await connectGoogle(e)).landing).toBe("/settings?notice=calendar_connected");
    await deliverPushes(e);
    const [first] = (await googleChannels(e)).filter((c) => c.live);
    // Act 1: twelve quiet hours (48 poll visits).
    reads = 0;
    await advance(e, 12 * H);
    await deliverPushes(e);
    // Assess 1: two safety-net reads, each at most an incremental call and a full one; a
    // 15-minute poll would have read 48 times.
    expect(reads).toBeGreaterThanOrEqual(2);
    expect(reads).toBeLessThanOrEqual(4);
    // Act 2: the channel goes quiet; a meeting is added that no push announces.
    await googleFaults(e, { silenceChannel: { id: String(first?.id) } });
    const now = await nowOf(e);
    const start = now + 6 * H + 30 * MIN;
    await addGoogleEvent(e, { summary: "Unannounced", start, end: start + 30 * MIN });
    await deliverPushes(e);
    await advance(e, 6 * H);
    await deliverPushes(e);
    // Assess 2: the safety-net read found it; a new channel replaced the quiet one
    const live = (await googleChannels(e)).filter((c) => c.live);
    expect(live).toHaveLength(1);
    expect(live[0]?.id).not.toBe(first?.id);
    // (and the meeting shows at its start)
    await advance(e, 30 * MIN + MIN);
    await deliverPushes(e);
    expect((await profileOf(e, "U001")).status_text).toBe("In a meeting");
  }, 240_000);
});
