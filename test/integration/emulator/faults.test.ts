import { afterEach, describe, expect, it } from "vitest";
import { FaultSpecError, parseFaults, seededRandom } from "#emulator/faults";
import { type RunningEmulator, startEmulator } from "#emulator/server";
import { ManualClock } from "#lib/core/clock";
import { ServiceClient } from "#lib/service/client";
import { conformanceWorkspace } from "../service/harness";

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const running: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.close()));
});

describe("fault specs", () => {
  it("parses rates, event faults and a delay range", () => {
    // Act
    const f = parseFaults(
      "internal_error=0.1,ratelimited=0.05,timeout=0.02,drop_event=0.2,duplicate_event=0.1,delay_event_ms=0..3000",
    );
    // Assess
    expect(f).toEqual({
      errors: { internal_error: 0.1, ratelimited: 0.05 },
      timeout: 0.02,
      dropEvent: 0.2,
      duplicateEvent: 0.1,
      delayEventMs: [0, 3000],
    });
  });

  it.each([
    "melt=0.1",
    "internal_error=1.5",
    "internal_error",
    "delay_event_ms=9..1",
    "too_long=1",
  ])("refuses %s with a clear error", (spec) => {
    expect(() => parseFaults(spec)).toThrow(FaultSpecError);
  });

  it("draws the same sequence from the same seed", () => {
    // Act
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const seqA = [a(), a(), a()];
    // Assess
    expect([b(), b(), b()]).toEqual(seqA);
    expect([c(), c(), c()]).not.toEqual(seqA);
    expect(seqA.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it("replays the same injected failures for the same seed", async () => {
    // Prepare
    const outcomes: string[][] = [];
    for (let run = 0; run < 2; run++) {
      const clock = new ManualClock(T0);
      const emu = await startEmulator({
        workspace: conformanceWorkspace(),
        clock,
        expirySweepMs: 0,
        faults: "internal_error=0.5",
        seed: 99,
      });
      running.push(emu);
      const client = new ServiceClient({ baseUrl: emu.apiBase, clock, budget: false });
      // Act
      for (let i = 0; i < 12; i++) {
        await client.getProfile({ token: "xoxp-member-0001" }).catch(() => undefined);
      }
      outcomes.push(emu.calls().map((c) => c.outcome));
    }
    // Assess
    expect(outcomes[0]).toEqual(outcomes[1]);
    expect(outcomes[0]).toContain("internal_error");
    expect(outcomes[0]).toContain("ok");
  });
});
