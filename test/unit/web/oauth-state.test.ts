import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../lib/core/clock";
import { MemoryOneTimeMarks } from "../../../lib/store/memory-one-time-marks";
import { OAuthStateError } from "../../../lib/web/errors";
import { OAuthStates, STATE_TTL_MS } from "../../../lib/web/oauth-state";

// The rule: a state is signed with the app's key, valid for 10 minutes from issue, and good for
// one callback only. Anything else is refused with a code saying why, and a 400.

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const KEY = "k".repeat(32);
const OTHER_KEY = "o".repeat(32);

function setup(key = KEY) {
  const clock = new ManualClock(T0);
  const marks = new MemoryOneTimeMarks();
  return { clock, marks, states: new OAuthStates({ key, clock, marks }) };
}

async function refusal(
  p: Promise<unknown>,
): Promise<{ code: string; status: number } | "accepted"> {
  try {
    await p;
    return "accepted";
  } catch (error: unknown) {
    if (!(error instanceof OAuthStateError)) throw error;
    return { code: error.code, status: error.httpStatus };
  }
}

describe("install state", () => {
  it("accepts a state it issued, once", async () => {
    // Prepare
    const { states } = setup();
    const state = states.issue();
    // Act
    const first = await states.consume(state);
    const second = await refusal(states.consume(state));
    // Assess
    expect(first.expiresAt).toBe(T0 + 10 * 60_000);
    expect(second).toEqual({ code: "replayed", status: 400 });
  });

  it("issues a different, URL-safe state each time", () => {
    // Prepare
    const { states } = setup();
    // Act
    const issued = new Set(Array.from({ length: 50 }, () => states.issue()));
    // Assess
    expect(issued.size).toBe(50);
    for (const s of issued) expect(encodeURIComponent(s)).toBe(s);
  });

  it("accepts a state until 10 minutes after issue, and refuses it from then on", async () => {
    // Prepare
    const { states, clock } = setup();
    const inTime = states.issue();
    const late = states.issue();
    // Act
    clock.advance(STATE_TTL_MS - 1);
    const lastMs = await refusal(states.consume(inTime));
    clock.advance(1);
    const expired = await refusal(states.consume(late));
    // Assess
    expect(STATE_TTL_MS).toBe(600_000);
    expect(lastMs).toBe("accepted");
    expect(expired).toEqual({ code: "expired", status: 400 });
  });

  it("refuses a state signed with another key", async () => {
    // Prepare
    const { states } = setup();
    const foreign = setup(OTHER_KEY).states.issue();
    // Act
    const result = await refusal(states.consume(foreign));
    // Assess
    expect(result).toEqual({ code: "bad_signature", status: 400 });
  });

  it("refuses a state whose expiry was pushed later, or whose nonce or MAC was changed", async () => {
    // Prepare
    const { states } = setup();
    const [version, nonce, expiry, mac] = states.issue().split(".");
    const flip = (s: string) => (s.startsWith("A") ? `B${s.slice(1)}` : `A${s.slice(1)}`);
    const forged = [
      [version, nonce, String(Number(expiry) + 3_600_000), mac],
      [version, flip(nonce ?? ""), expiry, mac],
      [version, nonce, expiry, flip(mac ?? "")],
    ].map((parts) => parts.join("."));
    // Act
    const results = await Promise.all(forged.map((s) => refusal(states.consume(s))));
    // Assess
    expect(results).toEqual(forged.map(() => ({ code: "bad_signature", status: 400 })));
  });

  it("refuses a state a forger signed with the right scheme but without the key", async () => {
    // Prepare: the forger knows the format and the label, not the key.
    const { states } = setup();
    const body = `1.${"A".repeat(22)}.${T0 + 60_000}`;
    const mac = createHmac("sha256", "guess".repeat(8))
      .update(`oauth-state:${body}`)
      .digest("base64url");
    // Act
    const result = await refusal(states.consume(`${body}.${mac}`));
    // Assess
    expect(result).toEqual({ code: "bad_signature", status: 400 });
  });

  it("calls anything not of the state's form malformed, and spends nothing for it", async () => {
    // Prepare
    const { states, clock } = setup();
    const good = states.issue();
    const inputs = [
      undefined,
      "",
      "abc",
      `${good}.x`,
      good.slice(0, -1),
      ` ${good}`,
      `2${good.slice(1)}`,
    ];
    // Act
    const results = await Promise.all(inputs.map((s) => refusal(states.consume(s))));
    clock.advance(1000);
    const stillGood = await refusal(states.consume(good));
    // Assess
    expect(results).toEqual(inputs.map(() => ({ code: "malformed", status: 400 })));
    expect(stillGood).toBe("accepted");
  });

  it("spends nothing for a forged or expired state", async () => {
    // Prepare: a store that records every consume.
    const clock = new ManualClock(T0);
    const consumed: string[] = [];
    const states = new OAuthStates({
      key: KEY,
      clock,
      marks: {
        consume: async (id) => {
          consumed.push(id);
          return true;
        },
      },
    });
    const expired = states.issue();
    clock.advance(STATE_TTL_MS);
    const foreign = setup(OTHER_KEY).states.issue();
    // Act
    await refusal(states.consume(expired));
    await refusal(states.consume(foreign));
    // Assess
    expect(consumed).toEqual([]);
  });

  it("refuses a key too short to be a secret", () => {
    // Act / Assess
    expect(() => setup("short")).toThrow(RangeError);
  });
});
