import { afterEach, describe, expect, it } from "vitest";
import type { GoogleE2e } from "./google-support";
import {
  google,
  graph,
  type MeasuredRenewal,
  measureRenewals,
  type ProviderUnderTest,
  statusAfterMeeting,
} from "./renewal-support";

/**
 * Issue 28 §12: a provider may grant a channel less than asked (Google's events.watch answers its
 * `expiration`, Graph's POST and PATCH their `expirationDateTime`). Each renewal must come on its
 * second, before the channel it replaces expires: Google by a new watch then channels.stop of the
 * old channel, Graph by PATCH of the one subscription. Over real HTTP, on the stack's hand-moved
 * clock, with the emulators granting 90 s (where about 7 days were asked) and 7 days (where 30
 * were asked; Graph's client asks 10 minutes under its 10,080-minute limit).
 */
const T0 = Date.parse("2026-03-02T08:00:00.400Z");
const DAY = 86_400_000;
const PROVIDERS: ProviderUnderTest[] = [google, graph];
let e: GoogleE2e | undefined;
afterEach(async () => {
  await e?.close();
  e = undefined;
});

const timelineLine = (name: string, granted: string, timeline: MeasuredRenewal[]) =>
  `${name}, ${granted} granted: ${timeline
    .map(
      (r) =>
        `renewed at +${((r.at - T0) / 1000).toFixed(1)} s (lifetime ${r.lifetimeMs / 1000} s, ${r.lateMs} ms after its second, ${r.marginMs / 1000} s before the old expiry)`,
    )
    .join("; ")}`;

/** Every renewal within 2 s of its second and before the grant it replaces ran out. */
function expectOnTime(timeline: MeasuredRenewal[], renewals: number): void {
  expect(timeline).toHaveLength(renewals);
  for (const r of timeline) {
    expect(r.lateMs).toBeGreaterThanOrEqual(0);
    expect(r.lateMs).toBeLessThanOrEqual(2000);
    expect(r.marginMs).toBeGreaterThan(0);
  }
}

/** Google: a watch per channel and a stop per renewal; Graph: one POST, a PATCH per renewal. */
const callsAfter = (provider: ProviderUnderTest, renewals: number) =>
  provider === google
    ? { watch: renewals + 1, stop: renewals }
    : { POST: 1, PATCH: renewals, DELETE: 0 };

describe.each(PROVIDERS)("$name grants 90 s", (provider) => {
  const RENEWALS = 6;
  it("renews every channel on its second, with no lapse", async () => {
    const measured = await measureRenewals(provider, {
      start: T0,
      grantedS: 90,
      renewals: RENEWALS,
    });
    e = measured.e;
    console.log(timelineLine(provider.name, "90 s", measured.timeline));
    expectOnTime(measured.timeline, RENEWALS);
    for (const r of measured.timeline) expect(r.lifetimeMs).toBe(90_000);
    const counts = await provider.counts(e);
    console.log(`${provider.name} calls: ${JSON.stringify(counts)}`);
    expect(counts).toEqual(callsAfter(provider, RENEWALS));
    expect(await statusAfterMeeting(provider, e, "After the renewals")).not.toBe("");
  }, 60_000);
});

/**
 * Days of minute ticks would take the stack many minutes of wall time (each tick is a Lambda
 * invocation against DynamoDB): for the 7-day lifetime the stack ticks every 14 minutes and
 * looks as far ahead (plus the deployed 10 s margin), so the renewal still comes through the
 * tick's look-ahead and the queue's delay, as it does between minute ticks; the poll, which this
 * test does not need, runs every 6 hours. Renewals of renewed channels are the 90 s test's.
 */
describe.each(PROVIDERS)("$name grants 7 days", (provider) => {
  const RENEWALS = 1;
  const TICK_EVERY_MS = 14 * 60_000;
  it("renews the channel at 80% of it, on its second", async () => {
    const measured = await measureRenewals(provider, {
      start: T0,
      grantedS: 7 * 86_400,
      renewals: RENEWALS,
      stack: {
        pushTtlMs: 30 * DAY,
        tickEveryMs: TICK_EVERY_MS,
        tickHorizonMs: TICK_EVERY_MS + 10_000,
        pollEveryMs: 6 * 3_600_000,
      },
    });
    e = measured.e;
    console.log(timelineLine(provider.name, "7 d", measured.timeline));
    expectOnTime(measured.timeline, RENEWALS);
    for (const r of measured.timeline) {
      expect(r.lifetimeMs).toBeGreaterThan(6.9 * DAY);
      expect(r.lifetimeMs).toBeLessThanOrEqual(7 * DAY);
      expect(r.marginMs).toBeGreaterThan(DAY);
    }
    const counts = await provider.counts(e);
    console.log(`${provider.name} calls: ${JSON.stringify(counts)}`);
    expect(counts).toEqual(callsAfter(provider, RENEWALS));
    expect(await statusAfterMeeting(provider, e, "After the renewal")).not.toBe("");
  }, 300_000);
});
