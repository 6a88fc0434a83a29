/** Errors of the service client. Every failure of a call is a ServiceError keyed by `code`. */

/** The error codes of spec section 7 (7.1 both methods, 7.2 profile set, 7.3 manifest update). */
export const SPEC_ERROR_CODES = [
  // 7.1
  "access_denied",
  "accesslimited",
  "account_inactive",
  "deprecated_endpoint",
  "ekm_access_denied",
  "enterprise_is_restricted",
  "fatal_error",
  "internal_error",
  "invalid_arg_name",
  "invalid_arguments",
  "invalid_array_arg",
  "invalid_auth",
  "invalid_charset",
  "invalid_form_data",
  "invalid_post_type",
  "method_deprecated",
  "missing_post_type",
  "missing_scope",
  "no_permission",
  "not_allowed_token_type",
  "not_authed",
  "org_login_required",
  "ratelimited",
  "request_timeout",
  "service_unavailable",
  "team_access_not_granted",
  "team_added_to_org",
  "token_expired",
  "token_revoked",
  "two_factor_setup_required",
  // 7.2
  "cannot_update_admin_user",
  "email_taken",
  "invalid_emoji_not_allowed",
  "invalid_ooo_message",
  "invalid_profile",
  "invalid_starts_with_at",
  "must_clear_both_status_text_and_status_emoji",
  "name_not_allowed",
  "not_admin",
  "not_app_admin",
  "partial_profile_set_failed",
  "permission_denied",
  "profile_set_failed",
  "reserved_name",
  "sudo_required",
  "too_long",
  "username_same",
  // 7.3
  "app_not_eligible",
  "app_not_owned_by_manager_app",
  "dynamic_client_registration_failed",
  "dynamic_client_registration_invalid_redirect_uri",
  "dynamic_client_registration_invalid_response",
  "dynamic_client_registration_missing_oauth_endpoints",
  "dynamic_client_registration_not_supported",
  "dynamic_client_registration_rejected",
  "failed_adding_collaborator",
  "failed_creating_app",
  "failed_datastore_operation",
  "invalid_app",
  "invalid_app_id",
  "invalid_manifest",
  "oauth_metadata_not_found",
  "unknown_method",
] as const;

export type SpecErrorCode = (typeof SPEC_ERROR_CODES)[number];

/** Failures the client names itself: unreachable, no answer in time, an answer off the spec. */
export type ClientErrorCode = "network_error" | "timeout" | "invalid_response";

/**
 * "Other unlisted errors can occur when the service is down or processing is disturbed" (spec 7):
 * any other code the service answers. `string & {}` keeps the listed codes' completion.
 */
export type UnlistedErrorCode = string & {};

export type ServiceErrorCode = SpecErrorCode | ClientErrorCode | UnlistedErrorCode;

const SPEC_CODES: ReadonlySet<string> = new Set(SPEC_ERROR_CODES);

/** True for a code that spec section 7 lists. */
export const isSpecErrorCode = (code: string): code is SpecErrorCode => SPEC_CODES.has(code);

export interface ManifestProblem {
  message: string;
  pointer: string;
}

export interface ServiceErrorData {
  code: ServiceErrorCode;
  retryable?: boolean;
  retryAfterS?: number;
  errors?: ManifestProblem[];
  httpStatus?: number;
  local?: boolean;
  cause?: unknown;
}

/** Codes worth retrying later: the service said so, or it was momentarily unreachable. */
const RETRYABLE_CODES: ReadonlySet<string> = new Set<SpecErrorCode | ClientErrorCode>([
  "ratelimited",
  "internal_error",
  "service_unavailable",
  "request_timeout",
  "team_added_to_org",
  "network_error",
  "timeout",
]);

/** Codes that no retry can fix: the user must re-authorise (or an admin must act). */
const FINAL_AUTH_CODES: ReadonlySet<string> = new Set<SpecErrorCode>([
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

export const isRetryableCode = (code: ServiceErrorCode): boolean => RETRYABLE_CODES.has(code);

/** True when the token can no longer act: stop calling and ask for a re-authorisation. */
export const isFinalAuthError = (code: ServiceErrorCode): boolean => FINAL_AUTH_CODES.has(code);

export class ServiceError extends Error {
  readonly code: ServiceErrorCode;
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
  code?: ServiceErrorCode;
}

/** Refused locally: the request breaks a rule of the service, so sending it would only fail. */
export class ServiceValidationError extends ServiceError {
  readonly problems: LocalProblem[];
  constructor(problems: LocalProblem[]) {
    const first = problems[0];
    super(
      `refused before sending: ${problems.map((p) => `${p.pointer || "(whole profile)"}: ${p.message}`).join("; ")}`,
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
