import { ServiceError } from "#lib/service/errors";

/**
 * What stops `deploy`, `doctor` or `destroy`: what went wrong and what to do about it. Never a
 * secret: messages name parameters, services and codes, not values.
 */
export class DeployError extends Error {
  override name = "DeployError";
  constructor(
    /** A stable code: `bad_input`, `aws_denied`, `aws_credentials`, `service_token`, … */
    readonly code: string,
    message: string,
    /** What the operator should do, one sentence. */
    readonly fix: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const nameOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "name" in error ? String(error.name) : "";

/** An AWS SDK error, in the operator's terms; `doing` says what the call was for. */
export function fromAws(error: unknown, doing: string, region: string): DeployError {
  if (error instanceof DeployError) return error;
  const name = nameOf(error);
  const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
  if (/AccessDenied|UnauthorizedOperation|AuthorizationError/.test(name)) {
    return new DeployError(
      "aws_denied",
      `AWS refused ${doing} (${name}: ${detail})`,
      "give the identity that deploys the policy in infra/deployer-policy.json, then run the same command again: what was done is kept",
      { cause: error },
    );
  }
  if (/ExpiredToken|RequestExpired|TokenRefreshRequired/.test(name)) {
    return new DeployError(
      "aws_credentials",
      `the AWS credentials expired while ${doing} (${name})`,
      "refresh them (e.g. `aws sso login`) and run the same command again: it resumes where it stopped",
      { cause: error },
    );
  }
  if (
    /UnrecognizedClient|InvalidClientTokenId|CredentialsProviderError|InvalidSignature/.test(name)
  ) {
    return new DeployError(
      "aws_credentials",
      `AWS did not accept the credentials in ${region} while ${doing} (${name})`,
      `check the credentials (AWS_PROFILE, or \`aws configure\`), and that ${region} is enabled for the account (an opt-in region must be turned on first)`,
      { cause: error },
    );
  }
  if (/Throttl|TooManyRequests|RequestLimitExceeded/.test(name)) {
    return new DeployError(
      "aws_throttled",
      `AWS kept throttling ${doing} after retries (${name})`,
      "wait a minute and run the same command again: it resumes where it stopped",
      { cause: error },
    );
  }
  return new DeployError(
    "aws_failed",
    `AWS failed ${doing} (${name || "error"}: ${detail})`,
    "fix the cause it names and run the same command again: it resumes where it stopped",
    { cause: error },
  );
}

const TOKEN_FIX =
  "make a new app configuration token at the service (your apps page, “app configuration tokens”), put it in STATUSPILOT_CONFIG_TOKEN and run the same command again";

/** A refusal of the service's `apps.manifest.*`, in the operator's terms. */
export function fromService(error: unknown, doing: string): DeployError {
  if (error instanceof DeployError) return error;
  if (!(error instanceof ServiceError)) {
    const detail = error instanceof Error ? error.message : String(error);
    return new DeployError(
      "service_failed",
      `the service failed ${doing}: ${detail}`,
      "check --service-url and the network, then run the same command again",
      { cause: error },
    );
  }
  const code = error.code;
  if (code === "token_expired") {
    return new DeployError(
      "service_token",
      `STATUSPILOT_CONFIG_TOKEN has expired (${doing}): app configuration tokens last 12 hours`,
      `${TOKEN_FIX}: what was done is kept`,
      { cause: error },
    );
  }
  if (
    [
      "not_authed",
      "invalid_auth",
      "not_allowed_token_type",
      "token_revoked",
      "account_inactive",
    ].includes(code)
  ) {
    return new DeployError(
      "service_token",
      `the service refused STATUSPILOT_CONFIG_TOKEN (${code}) ${doing}`,
      `${TOKEN_FIX}; it must be an app configuration token of the workspace`,
      { cause: error },
    );
  }
  if (code === "no_permission" || code === "app_not_owned_by_manager_app") {
    return new DeployError(
      "service_token",
      `the service says this token may not change the app (${code}) ${doing}`,
      "use an app configuration token of one of the app's collaborators",
      { cause: error },
    );
  }
  if (code === "invalid_manifest") {
    const where = (error.errors ?? []).map((p) => `${p.pointer || "/"}: ${p.message}`).join("; ");
    return new DeployError(
      "manifest",
      `the service refused infra/manifest.yaml (${where})`,
      "fix the manifest where the pointers say and run the same command again",
      { cause: error },
    );
  }
  const retry = error.retryAfterS !== undefined ? ` (retry after ${error.retryAfterS}s)` : "";
  return new DeployError(
    "service_refused",
    `the service refused ${doing}: ${code}${retry}`,
    "fix what the code names and run the same command again: what was done is kept",
    { cause: error },
  );
}
