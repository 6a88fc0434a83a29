/** Errors of the service client. Every failure of a call is a ServiceError keyed by `code`. */

export interface ManifestProblem {
  message: string;
  pointer: string;
}

export interface ServiceErrorData {
  code: string;
  retryable?: boolean;
  retryAfterS?: number;
  errors?: ManifestProblem[];
  httpStatus?: number;
  local?: boolean;
  cause?: unknown;
}

/** Codes worth retrying later: the service said so, or it was momentarily unreachable. */
const RETRYABLE_CODES: ReadonlySet<string> = new Set([
  "ratelimited",
  "internal_error",
  "service_unavailable",
  "request_timeout",
  "team_added_to_org",
  "network_error",
  "timeout",
]);

/** Codes that no retry can fix: the user must re-authorise (or an admin must act). */
const FINAL_AUTH_CODES: ReadonlySet<string> = new Set([
  "token_revoked",
  "account_inactive",
  "invalid_auth",
  "token_expired",
  "not_authed",
  "missing_scope",
  "no_permission",
  "not_allowed_token_type",
  "team_access_not_granted",
]);

export const isRetryableCode = (code: string): boolean => RETRYABLE_CODES.has(code);

/** True when the token can no longer act: stop calling and ask for a re-authorisation. */
export const isFinalAuthError = (code: string): boolean => FINAL_AUTH_CODES.has(code);

export class ServiceError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly retryAfterS?: number;
  readonly errors?: ManifestProblem[];
  readonly httpStatus?: number;
  /** True when the client refused the call before sending it (budget or validation). */
  readonly local: boolean;

  constructor(message: string, data: ServiceErrorData) {
    super(message, data.cause === undefined ? undefined : { cause: data.cause });
    this.name = "ServiceError";
    this.code = data.code;
    this.retryable = data.retryable ?? isRetryableCode(data.code);
    if (data.retryAfterS !== undefined) this.retryAfterS = data.retryAfterS;
    if (data.errors !== undefined) this.errors = data.errors;
    if (data.httpStatus !== undefined) this.httpStatus = data.httpStatus;
    this.local = data.local ?? false;
  }
}

/** The service could not be reached, or did not answer in time. Always retryable. */
export class ServiceNetworkError extends ServiceError {
  constructor(code: "network_error" | "timeout", message: string, cause: unknown) {
    super(message, { code, retryable: true, cause });
    this.name = "ServiceNetworkError";
  }
}

/** The service answered something that is not the documented envelope. */
export class ServiceResponseError extends ServiceError {
  constructor(message: string, httpStatus: number, cause?: unknown) {
    super(message, { code: "invalid_response", retryable: httpStatus >= 500, httpStatus, cause });
    this.name = "ServiceResponseError";
  }
}

export interface LocalProblem {
  message: string;
  pointer: string;
  code?: string;
}

/** Refused locally: the request breaks a rule of the service, so sending it would only fail. */
export class ServiceValidationError extends ServiceError {
  readonly problems: LocalProblem[];
  constructor(problems: LocalProblem[]) {
    const first = problems[0];
    super(
      `refused before sending: ${problems.map((p) => `${p.pointer || "/"}: ${p.message}`).join("; ")}`,
      { code: first?.code ?? "invalid_arguments", retryable: false, local: true },
    );
    this.name = "ServiceValidationError";
    this.problems = problems;
  }
}

/** Refused locally: the per-token budget of spec 8.1 has no slot now. Reschedule at `retryAt`. */
export class BudgetExceededError extends ServiceError {
  /** Epoch ms at which the next slot frees. */
  readonly retryAt: number;
  constructor(retryAt: number, now: number) {
    const retryAfterS = Math.max(1, Math.ceil((retryAt - now) / 1000));
    super(`rate budget exhausted; next slot in ${retryAfterS} s`, {
      code: "ratelimited",
      retryable: true,
      retryAfterS,
      local: true,
    });
    this.name = "BudgetExceededError";
    this.retryAt = retryAt;
  }
}
