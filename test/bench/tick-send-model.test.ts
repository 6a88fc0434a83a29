import { describe, expect, it } from "vitest";
import { tickSendModel } from "#bench/support/tick-send-model";

// The rule, restated: the tick's requests go out 8 at a time, each round taking 10 ms; sent one
// SendMessage after another, each transition takes 8 ms. The tick times out after 50 s.

describe("the tick's modelled send time", () => {
  it("sends a 10,000-user herd in 1.25 s, against 80 s one message at a time", () => {
    // 10,000 transitions in 1,000 requests: 125 rounds of 8 × 10 ms
    const m = tickSendModel(10_000, 1_000);
    expect(m.batchedS).toBeCloseTo(1.25, 12);
    expect(m.sequentialS).toBeCloseTo(80, 12);
    expect(m.sequentialS).toBeGreaterThan(m.timeoutS);
  });

  it("counts a partly filled round as a whole one", () => {
    // 1,000 transitions in 100 requests: 13 rounds (12 of 8, one of 4), 130 ms; 8 s one by one
    const m = tickSendModel(1_000, 100);
    expect(m.batchedS).toBeCloseTo(0.13, 12);
    expect(m.sequentialS).toBeCloseTo(8, 12);
  });
});
