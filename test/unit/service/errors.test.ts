import { describe, expect, it } from "vitest";
import {
  BudgetExceededError,
  isFinalAuthError,
  isSpecErrorCode,
  ServiceError,
  type ServiceErrorCode,
  ServiceValidationError,
} from "#lib/service/errors";

describe("ServiceError", () => {
  it.each([
    "ratelimited",
    "internal_error",
    "service_unavailable",
    "request_timeout",
    "team_added_to_org",
    "network_error",
  ])("marks %s as retryable", (code) => {
    // Act
    const err = new ServiceError(code, { code });
    // Assess
    expect(err.retryable).toBe(true);
  });

  it.each(["invalid_auth", "too_long", "not_admin", "invalid_manifest"])(
    "marks %s as not retryable",
    (code) => {
      expect(new ServiceError(code, { code }).retryable).toBe(false);
    },
  );

  it("names the auth codes that need a re-authorisation", () => {
    // Assess
    for (const code of ["token_revoked", "account_inactive", "invalid_auth", "token_expired"]) {
      expect(isFinalAuthError(code)).toBe(true);
    }
    expect(isFinalAuthError("ratelimited")).toBe(false);
    expect(isFinalAuthError("too_long")).toBe(false);
  });

  it("turns a budget refusal into a local, retryable ratelimited with whole seconds", () => {
    // Act
    const err = new BudgetExceededError(10_500, 9_000);
    // Assess
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({
      code: "ratelimited",
      retryable: true,
      local: true,
      retryAfterS: 2,
    });
    expect(err.retryAt).toBe(10_500);
    expect(err.name).toBe("BudgetExceededError");
  });

  it("carries the first problem's code and all problems on a local refusal", () => {
    // Act
    const err = new ServiceValidationError([
      { message: "too long", pointer: "/status_text", code: "too_long" },
      { message: "bad", pointer: "/title" },
    ]);
    // Assess
    expect(err.code).toBe("too_long");
    expect(err.local).toBe(true);
    expect(err.problems).toHaveLength(2);
    expect(err.message).toContain("/status_text");
  });

  it("types the code as the spec's codes plus the client's own, and still carries unlisted ones", () => {
    // Prepare: the union accepts listed codes and, as spec 7 allows, any other string.
    const listed: ServiceErrorCode = "must_clear_both_status_text_and_status_emoji";
    const unlisted: ServiceErrorCode = "some_future_error";
    // Act
    const known = new ServiceError("x", { code: listed });
    const other = new ServiceError("y", { code: unlisted });
    // Assess
    expect(isSpecErrorCode(known.code)).toBe(true);
    expect(isSpecErrorCode(other.code)).toBe(false);
    expect(isSpecErrorCode("network_error")).toBe(false);
    expect(other.code).toBe("some_future_error");
    expect(other.retryable).toBe(false);
  });
});
