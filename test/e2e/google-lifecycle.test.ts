import { afterEach, describe, expect, it } from "vitest";
import {
  addGoogleEvent,
  connectGoogle,
  GOOGLE_CALENDAR,
  type GoogleE2e,
  googleChannels,
  googleFaults,
  installAs,
  settingsHtml,
  startGoogleE2e,
} from "./google-support";
import { expectToldToReconnect, messagesTo, runQueued } from "./home-support";
import { advance, nowOf, profileOf, settle } from "./support";

/**
 * The push lifecycle over HTTP, on the stack's hand-moved clock (the Google emulator shares it):
 * a channel asked for 4 hours is renewed at 80% of it (a new channel, then the old one stopped),
 * a channel that lapsed while renewals failed is recreated, an expired sync token (410) is a
 * full resync, and a dead refresh token (invalid_grant) shows "connect again" on the page.
 * Waiting for quiet counts the pushes on their way, as it counts the service's events.
 */
const MIN = 60_000;
const T0 = Date.parse("2026-03-02T08:00:00.000Z");
let e: GoogleE2e | undefined;
afterEach(async () => {
  await e?.close();
  e = undefined;
});

/** Lets the Google emulator's pushes arrive and the stack run what they queued. */
async function deliver(stack: GoogleE2e): Promise<void> {
  await fetch(`${stack.googleUrl}/_control/flush`, { method: "POST" });
  await settle(stack);
  await advance(stack, 0);
  if (process.env.DEBUG_GOOGLE) {
    console.log(JSON.stringify(await (await fetch(`${stack.googleUrl}/_control/pushes`)).json()));
    console.log(JSON.stringify(await (await fetch(`${stack.url}/_local/clock`)).json()));
  }
}

async function connected(): Promise<GoogleE2e> {
  const stack = await startGoogleE2e({ manualAt: T0, pushTtlMs: 4 * 60 * MIN });
  await installAs(stack, "U001");
  const { landing } = await connectGoogle(stack);
  expect(landing).toBe("/settings?notice=calendar_connected");
  await deliver(stack);
  return stack;
}

const live = async (stack: GoogleE2e) => (await googleChannels(stack)).filter((c) => c.live);

async function meetingNowShows(stack: GoogleE2e, summary: string): Promise<string> {
  // A second later than the last read: a push at the very instant of a sync is covered by it.
  await advance(stack, 1000);
  const now = await nowOf(stack);
  await addGoogleEvent(stack, { summary, start: now - MIN, end: now + 30 * MIN });
  await deliver(stack);
  return (await profileOf(stack, "U001")).status_text;
}

describe("the Google push lifecycle", () => {
  it("renews at 80% of the lifetime: the new channel first, the old one stopped; pushes go on", async () => {
    e = await connected();
    const [first] = await live(e);
    expect(Number(first?.expiresAt) - T0).toBe(4 * 60 * MIN);
    // Act: past 80% of the 4 hours (3 h 12 min), the upkeep the tick finds due renews.
    await advance(e, 3 * 60 * MIN + 30 * MIN);
    await deliver(e);
    // Assess
    const channels = await googleChannels(e);
    const now = await live(e);
    expect(now).toHaveLength(1);
    expect(now[0]?.id).not.toBe(first?.id);
    expect(channels.find((c) => c.id === first?.id)?.stopped).toBe(true);
    expect(await meetingNowShows(e, "After renewal")).toBe("In a meeting");
  }, 60_000);

  it("recreates a channel that lapsed while its renewals failed", async () => {
    e = await connected();
    // Act: every Calendar call is rate limited past the channel's expiry.
    await googleFaults(e, { rateLimit: { status: 403, reason: "rateLimitExceeded" } });
    await advance(e, 4 * 60 * MIN + 5 * MIN);
    await deliver(e);
    expect(await live(e)).toHaveLength(0);
    expect(await settingsHtml(e)).toContain("lapsed");
    await googleFaults(e, { rateLimit: null });
    await advance(e, 15 * MIN);
    await deliver(e);
    // Assess
    expect(await live(e)).toHaveLength(1);
    expect(await settingsHtml(e)).toContain("pushed as they happen");
    expect(await meetingNowShows(e, "After repair")).toBe("In a meeting");
  }, 60_000);

  it("410 for the stored sync token: a full resync, and the change shows", async () => {
    e = await connected();
    await googleFaults(e, { expireSyncTokens: { calendar: GOOGLE_CALENDAR } });
    expect(await meetingNowShows(e, "After 410")).toBe("In a meeting");
  }, 60_000);

  it("a dead refresh token (invalid_grant) asks the person to connect again, once, by message too", async () => {
    e = await connected();
    const before = (await messagesTo(e, "U001")).length;
    await googleFaults(e, { invalidGrant: { user: GOOGLE_CALENDAR } });
    // Act: a change pushes; its read finds the grant dead. A second change pushes again.
    await meetingNowShows(e, "Unreadable");
    await runQueued(e);
    await meetingNowShows(e, "Unreadable too");
    await runQueued(e);
    // Assess: the page, one message with the way to connect again, and the tab's Reconnect.
    const page = await settingsHtml(e);
    expect(page).toContain("must be connected again");
    expect(page).toContain('href="/connect/google"');
    await expectToldToReconnect(e, "U001", before, "/connect/google");
  }, 60_000);

  it("settles a task's pushes before the clock moves on: its edit's sync is queued", async () => {
    // Prepare
    e = await connected();
    const { stack } = e;
    const syncsSent = async () => stack.queues.sync.stats().sent;
    const before = await syncsSent();
    // Act: a task at this instant edits the calendar (as a watch call makes Google push); the
    // advance to this instant runs it, and waits for what it set off.
    const now = stack.clock.now();
    stack.scheduler.at(now, () => {
      stack.google?.emulator?.control.addEvent(GOOGLE_CALENDAR, {
        summary: "Design review",
        start: { dateTime: new Date(now + 30 * MIN).toISOString() },
        end: { dateTime: new Date(now + 60 * MIN).toISOString() },
      });
    });
    await stack.advance(0);
    // Assess
    expect((await syncsSent()) - before).toBe(1);
  });
});
