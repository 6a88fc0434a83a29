import { expect } from "vitest";
import { DEMO_USERS, type RunningMicrosoftEmulator } from "#emulator/microsoft/server";
import { visit } from "../integration/web/support";
import {
  addGoogleEvent,
  connectGoogle,
  type GoogleE2e,
  googleChannels,
  installAs,
  startGoogleE2e,
} from "./google-support";
import { advance, advanceTo, nowOf, profileOf, settle } from "./support";

/**
 * What the renewal test (push-renewal.test.ts) drives, for each provider: a local stack on a
 * hand-moved clock whose emulator grants channels a shorter lifetime than asked (its
 * `/_control/granted-lifetime` knob), and the renewal timeline as that emulator saw it. The
 * expectations are the rule restated, not our code: a channel is renewed at 80% of the lifetime
 * the provider GRANTED (from the grant to its expiry), yet at least 30 s before its expiry and
 * never in the first half of its life.
 */
const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const MS_USER = DEMO_USERS[0]?.id ?? "";
/** How long after the stack's start (and its first tick) the calendar is connected. */
const CONNECT_OFFSET_MS = 23_700;

/** When a grant made at `at` and ending at `expiresAt` is due for renewal: the rule restated. */
export function renewalDueOf(grant: { at: number; expiresAt: number }): number {
  const lifetime = grant.expiresAt - grant.at;
  const byFraction = Math.floor(lifetime * 0.8);
  const byMargin = lifetime - 30_000;
  return grant.at + Math.max(Math.floor(lifetime / 2), Math.min(byFraction, byMargin));
}

/** One lifetime granted by the provider: a Google watch, a Graph POST or PATCH. */
export interface Grant {
  /** The emulator's clock when it granted it. */
  at: number;
  expiresAt: number;
  /** The channel (Google) or subscription (Graph) it is for. */
  channelId: string;
}

/** One provider as the renewal test sees it, over its emulator's HTTP surfaces. */
export interface ProviderUnderTest {
  name: string;
  /** Sets the emulator's granted lifetime (seconds). */
  grantLifetime(e: GoogleE2e, maxS: number): Promise<void>;
  connect(e: GoogleE2e): Promise<void>;
  /** The grant in force now (the newest one), as the emulator shows it. */
  current(e: GoogleE2e): Promise<Grant>;
  /**
   * Checks the renewal from `before` to `after` was this provider's kind (a new Google channel
   * then channels.stop of the old one; a Graph PATCH of the same subscription) and left nothing
   * else behind.
   */
  checkRenewal(e: GoogleE2e, before: Grant, after: Grant): Promise<void>;
  /** The calls the emulator counted so far, by kind. */
  counts(e: GoogleE2e): Promise<Record<string, number>>;
  /** Adds a meeting happening now; lets its push arrive. */
  addMeetingNow(e: GoogleE2e, summary: string): Promise<void>;
}

async function postJson(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${await res.text()}`);
}

interface GoogleChannel {
  id: string;
  createdAt: number;
  expiresAt: number;
  stopped: boolean;
  stoppedAt?: number;
  live: boolean;
}

const channelsOf = async (e: GoogleE2e): Promise<GoogleChannel[]> =>
  ((await googleChannels(e)) as unknown as GoogleChannel[]).sort(
    (a, b) => a.createdAt - b.createdAt,
  );

async function deliverGoogle(e: GoogleE2e): Promise<void> {
  await fetch(`${e.googleUrl}/_control/flush`, { method: "POST" });
  await settle(e);
  await advance(e, 0);
}

export const google: ProviderUnderTest = {
  name: "Google",
  grantLifetime: (e, maxS) => postJson(`${e.googleUrl}/_control/granted-lifetime`, { maxS }),
  async connect(e) {
    const { landing } = await connectGoogle(e);
    expect(landing).toBe("/settings?notice=calendar_connected");
    await deliverGoogle(e);
  },
  async current(e) {
    const newest = (await channelsOf(e)).at(-1);
    if (newest === undefined) throw new Error("the Google emulator has no channel");
    return { at: newest.createdAt, expiresAt: newest.expiresAt, channelId: newest.id };
  },
  async checkRenewal(e, before, after) {
    const channels = await channelsOf(e);
    const old = channels.find((c) => c.id === before.channelId);
    // A new channel (events.watch), then channels.stop of the old one, while the old still lived.
    expect(after.channelId).not.toBe(before.channelId);
    expect(old?.stopped).toBe(true);
    expect(old?.stoppedAt).toBeGreaterThanOrEqual(after.at);
    expect(old?.stoppedAt).toBeLessThan(before.expiresAt);
    expect(channels.filter((c) => c.live).map((c) => c.id)).toEqual([after.channelId]);
  },
  async counts(e) {
    const channels = await channelsOf(e);
    return {
      watch: channels.length,
      stop: channels.filter((c) => c.stoppedAt !== undefined).length,
    };
  },
  async addMeetingNow(e, summary) {
    // A second later than the last read: a push at the very instant of a sync is covered by it.
    await advance(e, 1000);
    const now = await nowOf(e);
    await addGoogleEvent(e, { summary, start: now - MIN, end: now + 30 * MIN });
    await deliverGoogle(e);
  },
};

const graphOf = (e: GoogleE2e): RunningMicrosoftEmulator => {
  const graph = e.stack.microsoft?.emulator;
  if (graph === undefined) throw new Error("the stack runs no Microsoft emulator");
  return graph;
};

/** The subscription calls Graph answered, in order. */
const subscriptionCalls = (e: GoogleE2e) =>
  graphOf(e)
    .calls()
    .filter((c) => c.path.startsWith("/v1.0/subscriptions"));

async function deliverGraph(e: GoogleE2e): Promise<void> {
  await graphOf(e).flushNotifications();
  await settle(e);
  await advance(e, 0);
}

export const graph: ProviderUnderTest = {
  name: "Microsoft Graph",
  grantLifetime: (e, maxS) => postJson(`${graphOf(e).url}/_control/granted-lifetime`, { maxS }),
  async connect(e) {
    const begin = await visit(e.jar, `${e.url}/connect/microsoft`);
    const consent = new URL(begin.headers.get("location") ?? "");
    consent.searchParams.set("as", MS_USER);
    const approved = await visit(e.jar, consent.href);
    const callback = await visit(e.jar, approved.headers.get("location") ?? "");
    expect(callback.headers.get("location")).toBe("/settings?notice=calendar_connected");
    await deliverGraph(e);
  },
  async current(e) {
    const subs = graphOf(e).subscriptions();
    expect(subs).toHaveLength(1);
    const [sub] = subs;
    // The newest call that granted a lifetime: the POST that made it, or a PATCH that renewed it.
    const granted = subscriptionCalls(e)
      .filter((c) => (c.method === "POST" || c.method === "PATCH") && c.status < 300)
      .at(-1);
    if (sub === undefined || granted === undefined) throw new Error("Graph has no subscription");
    return { at: granted.at, expiresAt: sub.expiresAt, channelId: sub.id };
  },
  async checkRenewal(e, before, after) {
    // The same subscription, renewed by PATCH; nothing refused on the way (a 404 would mean it
    // had expired), no new one made.
    expect(after.channelId).toBe(before.channelId);
    const calls = subscriptionCalls(e);
    expect(calls.filter((c) => c.status >= 300)).toEqual([]);
    const last = calls.at(-1);
    expect(last?.method).toBe("PATCH");
    expect(last?.at).toBe(after.at);
  },
  async counts(e) {
    const calls = subscriptionCalls(e);
    const count = (method: string) => calls.filter((c) => c.method === method).length;
    return { POST: count("POST"), PATCH: count("PATCH"), DELETE: count("DELETE") };
  },
  async addMeetingNow(e, summary) {
    await advance(e, 1000);
    const now = await nowOf(e);
    graphOf(e).createEvent(MS_USER, { subject: summary, start: now - MIN, end: now + 30 * MIN });
    await deliverGraph(e);
  },
};

/** Moves the stack's clock to `to` a simulated day per request, each well inside HTTP's timeouts. */
async function advanceInDays(e: GoogleE2e, to: number): Promise<void> {
  for (let at = await nowOf(e); at < to; at = Math.min(to, at + DAY)) await advanceTo(e, at);
  await advanceTo(e, to);
}

/** One renewal as measured: when it was due by the rule, when the provider saw it, how late. */
export interface MeasuredRenewal {
  due: number;
  at: number;
  lateMs: number;
  /** How long the replaced grant still had to live when its successor was live. */
  marginMs: number;
  lifetimeMs: number;
}

/**
 * A stack whose `provider` grants `grantedS` seconds, with U001 installed and connected; then
 * `renewals` renewals, each checked at its second: nothing before it is due (a second earlier the
 * grant in force is the same), the renewal 0-2 s after it, before the old grant expired.
 */
export async function measureRenewals(
  provider: ProviderUnderTest,
  opts: {
    start: number;
    grantedS: number;
    renewals: number;
    stack?: Omit<Parameters<typeof startGoogleE2e>[0], "manualAt">;
  },
): Promise<{ e: GoogleE2e; timeline: MeasuredRenewal[] }> {
  const e = await startGoogleE2e({ ...opts.stack, manualAt: opts.start });
  try {
    await provider.grantLifetime(e, opts.grantedS);
    await installAs(e, "U001");
    // Connected at an instant off the minute tick's, so that renewals fall between ticks.
    await advance(e, CONNECT_OFFSET_MS);
    await provider.connect(e);
    let current = await provider.current(e);
    // The provider granted what its knob says, not what was asked.
    expect(current.expiresAt - current.at).toBeLessThanOrEqual(opts.grantedS * 1000);
    const timeline: MeasuredRenewal[] = [];
    for (let i = 0; i < opts.renewals; i++) {
      const due = renewalDueOf(current);
      await advanceInDays(e, due - 1000);
      expect(await provider.current(e)).toEqual(current);
      await advanceTo(e, due + 2000);
      const next = await provider.current(e);
      expect(next).not.toEqual(current);
      await provider.checkRenewal(e, current, next);
      timeline.push({
        due,
        at: next.at,
        lateMs: next.at - due,
        marginMs: current.expiresAt - next.at,
        lifetimeMs: current.expiresAt - current.at,
      });
      current = next;
    }
    return { e, timeline };
  } catch (error: unknown) {
    await e.close();
    throw error;
  }
}

/** The user's status after a meeting that starts now was added: pushes still arrive. */
export async function statusAfterMeeting(
  provider: ProviderUnderTest,
  e: GoogleE2e,
  summary: string,
): Promise<string> {
  await provider.addMeetingNow(e, summary);
  return (await profileOf(e, "U001")).status_text;
}
