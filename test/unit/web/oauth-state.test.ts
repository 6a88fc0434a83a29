import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ManualClock } from "#lib/core/clock";
import { MemoryOneTimeMarks } from "#lib/store/memory-one-time-marks";
import { OAuthStateError } from "#lib/web/errors";
import {
  installBindingClearCookie,
  installBindingSetCookie,
  newInstallBinding,
  readInstallBinding,
} from "#lib/web/install-binding";
import { OAuthStates, STATE_TTL_MS } from "#lib/web/oauth-state";

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
      .update(`oauth-state:${body}|`)
      .digest("base64url");
    const withKey = createHmac("sha256", KEY).update(`oauth-state:${body}|`).digest("base64url");
    // Act
    const result = await refusal(states.consume(`${body}.${mac}`));
    const control = await refusal(states.consume(`${body}.${withKey}`));
    // Assess: the same scheme under the real key passes, so only the key made the difference.
    expect(result).toEqual({ code: "bad_signature", status: 400 });
    expect(control).toBe("accepted");
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
    const marks = new MemoryOneTimeMarks();
    const states = new OAuthStates({
      key: KEY,
      clock,
      marks: Object.assign(marks, {
        consume: async (id: string) => {
          consumed.push(id);
          return true;
        },
      }),
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

describe("install state bound to the browser", () => {
  it("accepts a bound state only with the binding it was issued with", async () => {
    // Prepare
    const { states } = setup();
    const binding = newInstallBinding();
    const bound = states.issue(binding);
    // Act
    const otherBrowser = await refusal(states.consume(bound, newInstallBinding()));
    const noCookie = await refusal(states.consume(bound));
    const sameBrowser = await refusal(states.consume(bound, binding));
    // Assess
    expect(otherBrowser).toEqual({ code: "bad_signature", status: 400 });
    expect(noCookie).toEqual({ code: "bad_signature", status: 400 });
    expect(sameBrowser).toBe("accepted");
  });

  it("refuses an unbound state when the callback expects a binding", async () => {
    // Prepare
    const { states } = setup();
    const unbound = states.issue();
    // Act
    const result = await refusal(states.consume(unbound, newInstallBinding()));
    // Assess
    expect(result).toEqual({ code: "bad_signature", status: 400 });
  });

  it("carries the binding in a 10-minute HttpOnly, SameSite=Lax cookie, Secure over https", () => {
    // Prepare
    const binding = newInstallBinding();
    // Act
    const http = installBindingSetCookie(binding, false);
    const https = installBindingSetCookie(binding, true);
    // Assess
    expect(http).toBe(
      `statuspilot_install=${binding}; Path=/; Max-Age=600; HttpOnly; SameSite=Lax`,
    );
    expect(https).toBe(
      `__Host-statuspilot_install=${binding}; Path=/; Max-Age=600; HttpOnly; SameSite=Lax; Secure`,
    );
    expect(readInstallBinding(`a=b; ${http.split(";")[0]}`, false)).toBe(binding);
    expect(readInstallBinding([https.split(";")[0] ?? ""], true)).toBe(binding);
    expect(readInstallBinding("statuspilot_install=<script>", false)).toBeUndefined();
    expect(readInstallBinding(undefined, false)).toBeUndefined();
    expect(installBindingClearCookie(true)).toBe(
      "__Host-statuspilot_install=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure",
    );
  });
});
