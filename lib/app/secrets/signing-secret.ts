import { SSMProvider } from "@aws-lambda-powertools/parameters/ssm";
import { ConfigError } from "../config";

/**
 * How long a fetched signing secret is reused, in seconds. Long enough that a busy function
 * reads SSM a few times an hour, short enough that a rotated secret reaches every warm Lambda
 * within minutes (the value used to be cached for the life of the process).
 */
export const SIGNING_SECRET_MAX_AGE_S = 300;

/** One provider (and SSM client, and cache) per region, made on first use. */
const providers = new Map<string, SSMProvider>();

function providerFor(region: string): SSMProvider {
  let provider = providers.get(region);
  if (provider === undefined) {
    provider = new SSMProvider({ clientConfig: { region } });
    providers.set(region, provider);
  }
  return provider;
}

/**
 * The service's signing secret, an SSM SecureString read decrypted through Powertools
 * Parameters, which caches it for `SIGNING_SECRET_MAX_AGE_S` and never caches a failure. The
 * value never reaches a log or an error message. `provider` is for tests (a stubbed client).
 */
export async function readSigningSecret(
  region: string,
  name: string,
  provider: SSMProvider = providerFor(region),
): Promise<string> {
  return readSecureParameter(region, name, "SIGNING_SECRET_PARAM", provider);
}

/**
 * Any SecureString the same way (the front door's OAuth client secret and key): decrypted,
 * cached as the signing secret is, never logged. `variable` names the setting in errors.
 */
export async function readSecureParameter(
  region: string,
  name: string,
  variable: string,
  provider: SSMProvider = providerFor(region),
): Promise<string> {
  const value = await provider.get(name, { decrypt: true, maxAge: SIGNING_SECRET_MAX_AGE_S });
  if (!value) throw new ConfigError([variable], `SSM parameter ${name} has no value`);
  return value;
}
