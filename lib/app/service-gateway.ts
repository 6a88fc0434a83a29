import type { StatusValue } from "../core/types";
import type { ServiceClient } from "../service/client";
import { isFinalAuthError, ServiceError } from "../service/errors";
import { GatewayError, type StatusGateway, type StatusTarget } from "./ports";

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

/** The status gateway over the service client's `users.profile.set`. */
export class ServiceStatusGateway implements StatusGateway {
  constructor(private readonly client: Pick<ServiceClient, "setStatus">) {}

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
      return {
        actual: {
          text: profile.status_text,
          emoji: profile.status_emoji,
          expiration: profile.status_expiration,
        },
      };
    } catch (error: unknown) {
      if (error instanceof ServiceError) {
        const final = isFinalAuthError(error.code) || FINAL_PERMISSION_CODES.has(error.code);
        throw new GatewayError(
          error.message,
          error.code,
          error.retryable && !final,
          final,
          error.retryAfterS,
          {
            cause: error,
          },
        );
      }
      throw new GatewayError(
        "status write failed unexpectedly",
        "unexpected",
        true,
        false,
        undefined,
        {
          cause: error,
        },
      );
    }
  }
}
