import { describe, expect, it } from "vitest";
import { UPKEEP_LEASE_MS } from "#lib/app/push/plan";
import { enqueueDueUpkeeps, runUpkeep } from "#lib/app/push/schedule";
import type { SourceRecord } from "#lib/core/records";
import { KEY, pushUpkeepFixture, T0 } from "../../support/push-upkeep-fixture";

/**
 * The upkeep's bookkeeping, without a provider: the tick queues one `upkeep` message per entry
 * due; a worker finding another's claim does nothing; a source no longer connected has its entry
 * parked (no more upkeeps until it connects again); a message without a lifecycle request (a
 * repair, one delivered twice) leaves a retry that is waiting.
 */
const MIN = 60_000;

async function setup(sources: SourceRecord[]) {
  const { clock, deps, schedule, sent } = await pushUpkeepFixture({
    provider: "none",
    user: { since: T0, sources },
  });
  return { clock, deps, schedule, sent };
}

describe("push upkeep through the due index", () => {
  it("the tick queues one upkeep message per entry due, and none before its instant", async () => {
    const { clock, deps, schedule, sent } = await setup([]);
    await schedule.set({ key: KEY, sourceId: "google-1", dueAt: T0 + 5 * MIN, failures: 0 });
    expect(await enqueueDueUpkeeps(deps)).toBe(0);
    clock.set(T0 + 5 * MIN);
    expect(await enqueueDueUpkeeps(deps)).toBe(1);
    expect(sent).toEqual([{ ...KEY, sourceId: "google-1", reason: "upkeep" }]);
  });

  it("a source that is not connected (any more) has its entry parked", async () => {
    const ics: SourceRecord = { id: "ics-1", kind: "ics", url: "https://cal.example/a.ics" };
    const { clock, deps, schedule } = await setup([ics]);
    await schedule.set({ key: KEY, sourceId: "ics-1", dueAt: T0, failures: 1 });
    expect(await runUpkeep(deps, KEY, "ics-1", { readNewChannel: true })).toEqual({
      kind: "gone",
    });
    expect(await runUpkeep(deps, KEY, "removed", { readNewChannel: true })).toEqual({
      kind: "gone",
    });
    clock.set(T0 + 10 * UPKEEP_LEASE_MS);
    expect(await schedule.dueBy(clock.now())).toEqual([]);
  });

  it("another worker's claim, or a repair meeting a waiting retry, does nothing", async () => {
    const { deps, schedule } = await setup([]);
    await schedule.set({ key: KEY, sourceId: "google-1", dueAt: T0, failures: 0 });
    await schedule.claim(KEY, "google-1", T0, T0 + UPKEEP_LEASE_MS);
    expect(await runUpkeep(deps, KEY, "google-1", { readNewChannel: true })).toEqual({
      kind: "busy",
    });
    await schedule.set({ key: KEY, sourceId: "google-2", dueAt: T0 + 60 * MIN, failures: 2 });
    const repair = await runUpkeep(deps, KEY, "google-2", {
      upkeep: { repair: true },
      readNewChannel: true,
    });
    expect(repair).toEqual({ kind: "busy" });
    // Left as it was: the retry still waits for its instant, unclaimed.
    expect(await schedule.claim(KEY, "google-2", T0, T0 + 1)).toEqual({
      key: KEY,
      sourceId: "google-2",
      dueAt: T0 + 60 * MIN,
      failures: 2,
    });
  });

  it("a plain upkeep message delivered twice leaves a waiting retry alone", async () => {
    // The renewal failed once; the same message (queued by the tick and by the upkeep before
    // it) comes again a moment later: it must not ask the refusing provider again before the
    // retry's instant.
    const { deps, schedule } = await setup([]);
    await schedule.set({ key: KEY, sourceId: "google-3", dueAt: T0 + 10_000, failures: 1 });
    expect(await runUpkeep(deps, KEY, "google-3", { readNewChannel: true })).toEqual({
      kind: "busy",
    });
    expect(await schedule.claim(KEY, "google-3", T0, T0 + 1)).toEqual({
      key: KEY,
      sourceId: "google-3",
      dueAt: T0 + 10_000,
      failures: 1,
    });
  });
});
