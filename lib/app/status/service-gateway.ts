import { GatewayError, type StatusGateway, type StatusTarget } from "#lib/core/ports";
import type { StatusValue } from "#lib/core/types";
import type { Profile, ServiceClient } from "#lib/service/client";
import { isFinalAuthError, ServiceError } from "#lib/service/errors";

/**
 * Refusals no retry fixes besides the auth ones: the token's owner may not change this user
 * (spec 4.1: paid plan, admin role above the target's).
 */
const FINAL_PERMISSION_CODES: ReadonlySet<string> = new Set([
  "not_admin",
  "cannot_update_admin_user",
  "permission_denied",
  "access_denied",
  "ekm_access_denied",
  "two_factor_setup_required",
  "sudo_required",
]);

const statusOf = (profile: Profile): StatusValue => ({
  text: profile.status_text,
  emoji: profile.status_emoji,
  expiration: profile.status_expiration,
});

/** The service client's failure as a gateway error: retryable, final, or neither. */
export function gatewayError(error: unknown, what: string): GatewayError {
  if (error instanceof ServiceError) {
    const final = isFinalAuthError(error.code) || FINAL_PERMISSION_CODES.has(error.code);
    return new GatewayError(
      error.message,
      error.code,
      error.retryable && !final,
      final,
      error.retryAfterS,
      { cause: error },
    );
  }
  return new GatewayError(
    `status ${what} failed unexpectedly`,
    "unexpected",
    true,
    false,
    undefined,
    {
      cause: error,
    },
  );
}

/** The status gateway over the service client's `users.profile.set` and `users.profile.get`. */
export class ServiceStatusGateway implements StatusGateway {
  constructor(private readonly client: Pick<ServiceClient, "setStatus" | "getProfile">) {}

  async setStatus(target: StatusTarget, status: StatusValue): Promise<{ actual: StatusValue }> {
    try {
      const profile = await this.client.setStatus({
        token: target.token,
        budgetUser: target.key.user,
        status,
        // An admin's token changes another user's profile through the `user` parameter.
        ...(target.adminUser !== undefined ? { user: target.key.user } : {}),
        ...(target.actingUser !== undefined ? { actingUser: target.actingUser } : {}),
      });
      return { actual: statusOf(profile) };
    } catch (error: unknown) {
      throw gatewayError(error, "write");
    }
  }

  async readStatus(target: StatusTarget): Promise<{ actual: StatusValue }> {
    try {
      // Another user's profile (an admin's or a workspace token) is named by `user`.
      const other = target.adminUser !== undefined || target.actingUser !== undefined;
      const profile = await this.client.getProfile({
        token: target.token,
        ...(other ? { user: target.key.user } : {}),
      });
      return { actual: statusOf(profile) };
    } catch (error: unknown) {
      throw gatewayError(error, "read");
    }
  }
}
