import { describe, expect, it } from "vitest";
import type { SyncMessage } from "#lib/app/contracts";
import { enqueueDueUpkeeps, type PushScheduleDeps, runUpkeep } from "#lib/app/push/schedule";
import type { Queue, SendOptions } from "#lib/core/ports";
import type { SourceRecord } from "#lib/core/records";
import { KEY, pushUpkeepFixture, T0 } from "../../support/push-upkeep-fixture";

/**
 * Upkeeps scheduled to the second (issue 28 §12), as status transitions are: the tick looks
 * ahead to the next tick (70 s) and queues each entry due by then with the delay that lands it on
 * its second; what an earlier tick queued is not queued again unless it is overdue (its message
 * lost); an upkeep whose next instant comes before the next tick queues it itself, once.
 */
const S = 1000;

async function setup(sources: SourceRecord[] = []) {
  const fixture = await pushUpkeepFixture({ provider: "none", user: { since: T0, sources } });
  const sent: Array<{ sourceId: string; delaySeconds: number }> = [];
  const syncQueue: Queue<SyncMessage> = {
    send: async (m: SyncMessage, opts?: SendOptions) =>
      void sent.push({ sourceId: m.sourceId, delaySeconds: opts?.delaySeconds ?? 0 }),
  };
  const deps: PushScheduleDeps = { ...fixture.deps, syncQueue };
  return { ...fixture, deps, sent };
}

const at = (sourceId: string, dueAt: number) => ({ key: KEY, sourceId, dueAt, failures: 0 });

describe("the tick's upkeep messages", () => {
  it("land each entry due before the next tick on its second, once", async () => {
    const { clock, deps, schedule, sent } = await setup();
    await schedule.set(at("overdue", T0 - 5 * 60 * S));
    await schedule.set(at("soon", T0 + 30.5 * S));
    await schedule.set(at("edge", T0 + 69 * S));
    await schedule.set(at("later", T0 + 71 * S));
    expect(await enqueueDueUpkeeps(deps)).toBe(3);
    expect(sent).toEqual([
      { sourceId: "overdue", delaySeconds: 0 },
      { sourceId: "soon", delaySeconds: 31 },
      { sourceId: "edge", delaySeconds: 69 },
    ]);
    sent.length = 0;
    // The next tick: "later" is new to it; "edge" went out already; what is overdue (no worker
    // ran here: its message counts as lost) goes again, at once.
    clock.set(T0 + 60 * S);
    expect(await enqueueDueUpkeeps(deps)).toBe(3);
    expect(sent).toEqual([
      { sourceId: "overdue", delaySeconds: 0 },
      { sourceId: "soon", delaySeconds: 0 },
      { sourceId: "later", delaySeconds: 11 },
    ]);
  });

  it("an upkeep whose next instant comes before the next tick queues it, and a duplicate adds none", async () => {
    // A channel granted 40 s: renewed halfway, 20 s after it was made.
    const source: SourceRecord = {
      id: "google-1",
      kind: "google",
      url: "https://google.example/calendar/v3/calendars/primary",
      refreshTokenSealed: "sealed",
      push: { channelId: "c", createdAt: T0 - 10 * S, expiresAt: T0 + 30 * S },
    };
    const { deps, schedule, sent } = await setup([source]);
    await schedule.set(at("google-1", T0));
    expect(await runUpkeep(deps, KEY, "google-1", { readNewChannel: true })).toEqual({
      kind: "none",
    });
    expect(sent).toEqual([{ sourceId: "google-1", delaySeconds: 10 }]);
    expect(await schedule.dueBy(T0 + 10 * S)).toEqual([
      { key: KEY, sourceId: "google-1", dueAt: T0 + 10 * S },
    ]);
    // The same message delivered twice (SQS may): the instant did not move, nothing more is sent.
    await runUpkeep(deps, KEY, "google-1", { readNewChannel: true });
    expect(sent).toHaveLength(1);
  });
});
