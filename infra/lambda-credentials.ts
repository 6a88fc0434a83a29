/**
 * What the bundles use for the AWS SDK's default credential chain (infra/build.ts aliases
 * `@aws-sdk/credential-provider-node` to this module). On Lambda the function's execution-role
 * credentials are in its environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN), so the full chain's other sources (shared config files, SSO, process,
 * web identity, with STS and SSO clients of their own) are never reached, yet every client
 * loaded them at each cold start: about 130 KiB of each bundle. The container endpoint stays as
 * a second source, for a runtime that hands credentials out that way.
 */
import { fromEnv } from "@aws-sdk/credential-provider-env";
import { fromContainerMetadata } from "@smithy/credential-provider-imds";
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from "@smithy/types";

/** The options the SDK's clients pass their credential provider (a logger among them). */
type ProviderInit = Parameters<typeof fromEnv>[0] & Parameters<typeof fromContainerMetadata>[0];

/** The environment's credentials, else the container endpoint's: the SDK's own order for both. */
export const defaultProvider =
  (init: ProviderInit = {}): AwsCredentialIdentityProvider =>
  async (): Promise<AwsCredentialIdentity> => {
    try {
      return await fromEnv(init)();
    } catch (fromEnvironment: unknown) {
      try {
        return await fromContainerMetadata(init)();
      } catch {
        throw fromEnvironment;
      }
    }
  };
