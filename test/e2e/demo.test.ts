import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_RULES } from "#lib/local/demo";
import { demoEvents } from "#lib/local/demo-feed";
import { advanceTo, type E2e, liveLog, setCalls, startE2e, T0 } from "./support";

const S = 1000;
const TZ = "Europe/Berlin";
const events = demoEvents(T0, TZ);

let e: E2e;
beforeAll(async () => {
  e = await startE2e({ U001: { tz: TZ, events, rules: DEMO_RULES } });
});
afterAll(() => e?.close());

describe("the demo calendar of `npm start`", () => {
  it("shows a set and the service's expiry within the first minute", async () => {
    // Act
    await advanceTo(e, T0 + 60 * S);
    // Assess: T0 is 10:59:00.400Z, so the stand-up runs 10:59:21 to 10:59:51 (UTC)
    expect(await liveLog(e)).toEqual([
      '10:59:21 U001 set ":spiral_calendar_pad: In a meeting" until 10:59:51 (1 call)',
      "10:59:51 U001 expired (service cleared it, 0 calls)",
    ]);
  });

  it("sets the second meeting after the gap, one call per block", async () => {
    // Act
    await advanceTo(e, T0 + 90 * S);
    // Assess
    expect((await liveLog(e)).at(-1)).toBe(
      '11:00:11 U001 set ":spiral_calendar_pad: In a meeting" until 11:01:01 (1 call)',
    );
    expect(await setCalls(e, "U001")).toHaveLength(2);
  });

  it("shows the user's own Lunch status within 3 minutes, one call", async () => {
    // Act
    await advanceTo(e, T0 + 3 * 60 * S);
    // Assess
    expect((await liveLog(e)).slice(-2)).toEqual([
      "11:01:01 U001 expired (service cleared it, 0 calls)",
      '11:01:21 U001 set ":fork_and_knife: At lunch" until 11:02:51 (1 call)',
    ]);
    expect(await setCalls(e, "U001")).toHaveLength(3);
  });
});
