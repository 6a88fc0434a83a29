import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { verifyChannelToken, verifyClientState } from "#lib/http/calendar-push";
import { StaleTimestampError, WebhookError } from "#lib/http/errors";
import { constantTimeEqual, signV0, verifyV0 } from "#lib/http/signature";

const secret = "demo-signing-secret";
const nowMs = 1_767_000_000_000;
const nowS = String(nowMs / 1000);

describe("verifyV0", () => {
  it("accepts a body signed with the secret at the current second", () => {
    // Prepare
    const rawBody = '{"type":"event_callback"}';
    // Act
    const act = () =>
      verifyV0(
        secret,
        { rawBody, timestamp: nowS, signature: signV0(secret, nowS, rawBody) },
        nowMs,
      );
    // Assess
    expect(act).not.toThrow();
  });

  it("matches the documented HMAC-SHA256 over v0:<timestamp>:<body>", () => {
    // Prepare: a vector computed independently with openssl
    const rawBody = "hello";
    // Act
    const signature = signV0("k", "1", rawBody);
    // Assess
    expect(signature).toBe("v0=b68fed1d06aeb43f3c915b5604517dcf4b5ce88f47e952a2ad21bae4eda6c0eb");
  });

  it("refuses a timestamp more than five minutes old with the age in the error", () => {
    // Prepare
    const old = String(nowMs / 1000 - 301);
    const rawBody = "{}";
    // Act
    const act = () =>
      verifyV0(secret, { rawBody, timestamp: old, signature: signV0(secret, old, rawBody) }, nowMs);
    // Assess
    expect(act).toThrow(StaleTimestampError);
    try {
      act();
    } catch (error: unknown) {
      expect(error instanceof StaleTimestampError && error.ageS).toBe(301);
    }
  });

  it("accepts a timestamp exactly five minutes old", () => {
    const edge = String(nowMs / 1000 - 300);
    expect(() =>
      verifyV0(
        secret,
        { rawBody: "", timestamp: edge, signature: signV0(secret, edge, "") },
        nowMs,
      ),
    ).not.toThrow();
  });

  it("refuses missing headers and malformed signatures with distinct codes", () => {
    const codeOf = (fn: () => void): string | undefined => {
      try {
        fn();
        return undefined;
      } catch (error: unknown) {
        return error instanceof WebhookError ? error.code : "other";
      }
    };
    expect(
      codeOf(() =>
        verifyV0(secret, { rawBody: "", timestamp: undefined, signature: "v0=1" }, nowMs),
      ),
    ).toBe("missing_signature");
    expect(
      codeOf(() => verifyV0(secret, { rawBody: "", timestamp: nowS, signature: "v1=abc" }, nowMs)),
    ).toBe("malformed_signature");
    expect(
      codeOf(() =>
        verifyV0(
          secret,
          { rawBody: "", timestamp: "soon", signature: signV0(secret, nowS, "") },
          nowMs,
        ),
      ),
    ).toBe("malformed_signature");
  });

  it("refuses any change to the body, the timestamp or the secret (property)", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.integer({ min: -300, max: 300 }),
        (body, other, skew) => {
          fc.pre(body !== other);
          const ts = String(nowMs / 1000 + skew);
          const signature = signV0(secret, ts, body);
          expect(() =>
            verifyV0(secret, { rawBody: body, timestamp: ts, signature }, nowMs),
          ).not.toThrow();
          expect(() =>
            verifyV0(secret, { rawBody: other, timestamp: ts, signature }, nowMs),
          ).toThrow(WebhookError);
          expect(() =>
            verifyV0(`${secret}x`, { rawBody: body, timestamp: ts, signature }, nowMs),
          ).toThrow(WebhookError);
        },
      ),
    );
  });
});

describe("constantTimeEqual", () => {
  it("agrees with === for any pair of strings (property)", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b);
        expect(constantTimeEqual(a, a)).toBe(true);
      }),
    );
  });
});

describe("calendar push checks", () => {
  it("accepts the channel token chosen when the channel opened and refuses others", () => {
    expect(() => verifyChannelToken("tok-1", "tok-1")).not.toThrow();
    expect(() => verifyChannelToken("tok-1", "tok-2")).toThrow(/channel token/);
    expect(() => verifyChannelToken("tok-1", undefined)).toThrow(WebhookError);
  });

  it("refuses a Graph notification whose clientState differs or is absent", () => {
    expect(() => verifyClientState("state", "state")).not.toThrow();
    expect(() => verifyClientState("state", "State")).toThrow(/clientState/);
    expect(() => verifyClientState(undefined, "state")).toThrow(WebhookError);
  });
});
