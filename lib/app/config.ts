import * as z from "zod";

/**
 * Runtime configuration, read once from the environment by the composition root.
 *
 * | Variable              | Required | Meaning                                                          |
 * |-----------------------|----------|------------------------------------------------------------------|
 * | TABLE_NAME            | yes      | DynamoDB table                                                   |
 * | DYNAMODB_ENDPOINT     | no       | DynamoDB endpoint override (dynalite locally)                    |
 * | AWS_REGION            | no       | region for every AWS client (default us-east-1; Lambda sets it)  |
 * | SERVICE_BASE_URL      | yes      | the chat service's web API base, e.g. https://svc.example/api    |
 * | SIGNING_SECRET        | one of   | the app's signing secret, in clear (local)                       |
 * | SIGNING_SECRET_PARAM  | these    | SSM SecureString name holding it (AWS)                           |
 * | TOKEN_KEY             | one of   | base64 32-byte AES-GCM key for user tokens (local)               |
 * | TOKEN_KMS_KEY_ID      | these    | KMS key id/ARN that encrypts user tokens (AWS)                   |
 * | TRANSITION_QUEUE_URL  | AWS      | SQS transition queue (locally an in-process queue is injected)   |
 * | SYNC_QUEUE_URL        | AWS      | SQS sync queue (likewise)                                        |
 * | ADMIN_API_KEY         | no       | when set, the admin API requires it in `x-api-key` (local);      |
 * |                       |          | when unset it requires API Gateway's IAM authorizer (AWS)        |
 * | APP_ID                | no       | the app's id at the service                                      |
 * | LOG_LEVEL             | no       | DEBUG, INFO (default), WARN, ERROR, CRITICAL, SILENT             |
 * | OAUTH_CLIENT_ID       | web      | the app's OAuth client id at the service                         |
 * | OAUTH_CLIENT_SECRET   | web: one | the app's OAuth client secret, in clear (local)                  |
 * | OAUTH_CLIENT_SECRET_PARAM | of these | SSM SecureString name holding it (AWS, the web function)     |
 * | OAUTH_CLIENT_SECRET_SEALED | rotation | it sealed like user tokens (AWS): the reconcilers renew      |
 * |                       |          | rotating user tokens with it (and OAUTH_CLIENT_ID)               |
 * | WEB_KEY               | web: one | the front door's key (32+ characters): signs the install state,  |
 * | WEB_KEY_PARAM         | of these | session cookies and CSRF tokens; in clear (local) or SSM (AWS)   |
 * | PUBLIC_BASE_URL       | web      | where the web routes are served, e.g. https://sp.example; the    |
 * |                       |          | redirect URL is `<base>/oauth/callback`; cookies are Secure      |
 * |                       |          | exactly when it is https; `/statuspilot settings` links to it    |
 * | SERVICE_AUTHORIZE_URL | no       | the service's authorize page (default: the origin of            |
 * |                       |          | SERVICE_BASE_URL + /oauth/v2/authorize)                          |
 *
 * | GOOGLE_CLIENT_ID      | google   | the Google OAuth client id (connecting Google calendars)         |
 * | GOOGLE_CLIENT_SECRET  | google:  | its secret, in clear (local)                                     |
 * | GOOGLE_CLIENT_SECRET_PARAM | one | SSM SecureString name holding it (AWS)                           |
 * | GOOGLE_AUTH_URL       | no       | Google's consent page (default the real one)                     |
 * | GOOGLE_TOKEN_URL      | no       | Google's token endpoint (default the real one)                   |
 * | GOOGLE_API_BASE_URL   | no       | the Google APIs root, before /calendar/v3 (default the real one) |
 *
 * "google" marks what connecting Google calendars needs: without GOOGLE_CLIENT_ID the settings
 * page offers no "Connect Google" and everything else works as before.
 *
 * | MICROSOFT_CLIENT_ID   | microsoft | the Microsoft identity platform app (client) id               |
 * | MICROSOFT_CLIENT_SECRET | microsoft: | its client secret, in clear (local)                        |
 * | MICROSOFT_CLIENT_SECRET_PARAM | one | SSM SecureString name holding it (AWS)                     |
 * | MICROSOFT_AUTH_URL    | no       | the v2 authorize endpoint (default the real one, tenant common)  |
 * | MICROSOFT_TOKEN_URL   | no       | the v2 token endpoint (default the real one, tenant common)      |
 * | MICROSOFT_GRAPH_BASE_URL | no    | Microsoft Graph's base (default https://graph.microsoft.com/v1.0) |
 *
 * "microsoft" likewise: without MICROSOFT_CLIENT_ID there is no "Connect Microsoft".
 *
 * "web" marks what only the front door (`/install`, `/oauth/callback`, `/settings`) needs: the
 * other functions start without it, and the web function refuses to answer until it is set.
 */
const nonEmpty = z.string().trim().min(1);

/** The real Google endpoints: the defaults when no other (the emulator's) are configured. */
export const GOOGLE_ENDPOINTS = {
  authUrl: "https://accounts.google.com/o/oauth2/v2/auth",
  tokenUrl: "https://oauth2.googleapis.com/token",
  apiBaseUrl: "https://www.googleapis.com",
} as const;

/** The real Microsoft endpoints (tenant `common`: work, school and personal accounts). */
export const MICROSOFT_ENDPOINTS = {
  authUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
  tokenUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
  graphBaseUrl: "https://graph.microsoft.com/v1.0",
} as const;

export const configSchema = z
  .object({
    TABLE_NAME: nonEmpty,
    DYNAMODB_ENDPOINT: z.url().optional(),
    AWS_REGION: nonEmpty.default("us-east-1"),
    SERVICE_BASE_URL: z.url(),
    SIGNING_SECRET: nonEmpty.optional(),
    SIGNING_SECRET_PARAM: nonEmpty.optional(),
    TOKEN_KEY: nonEmpty.optional(),
    TOKEN_KMS_KEY_ID: nonEmpty.optional(),
    TRANSITION_QUEUE_URL: z.url().optional(),
    SYNC_QUEUE_URL: z.url().optional(),
    ADMIN_API_KEY: nonEmpty.optional(),
    APP_ID: nonEmpty.optional(),
    LOG_LEVEL: z.enum(["DEBUG", "INFO", "WARN", "ERROR", "CRITICAL", "SILENT"]).default("INFO"),
    // The front door (install and settings page).
    OAUTH_CLIENT_ID: nonEmpty.optional(),
    OAUTH_CLIENT_SECRET: nonEmpty.optional(),
    OAUTH_CLIENT_SECRET_PARAM: nonEmpty.optional(),
    OAUTH_CLIENT_SECRET_SEALED: nonEmpty.optional(),
    WEB_KEY: z.string().min(32, "must be at least 32 characters").optional(),
    WEB_KEY_PARAM: nonEmpty.optional(),
    PUBLIC_BASE_URL: z.url().optional(),
    SERVICE_AUTHORIZE_URL: z.url().optional(),
    // Google Calendar, connected through OAuth (issue 14).
    GOOGLE_CLIENT_ID: nonEmpty.optional(),
    GOOGLE_CLIENT_SECRET: nonEmpty.optional(),
    GOOGLE_CLIENT_SECRET_PARAM: nonEmpty.optional(),
    GOOGLE_AUTH_URL: z.url().default(GOOGLE_ENDPOINTS.authUrl),
    GOOGLE_TOKEN_URL: z.url().default(GOOGLE_ENDPOINTS.tokenUrl),
    GOOGLE_API_BASE_URL: z.url().default(GOOGLE_ENDPOINTS.apiBaseUrl),
    // Microsoft Graph (Outlook), connected through OAuth (issue 14).
    MICROSOFT_CLIENT_ID: nonEmpty.optional(),
    MICROSOFT_CLIENT_SECRET: nonEmpty.optional(),
    MICROSOFT_CLIENT_SECRET_PARAM: nonEmpty.optional(),
    MICROSOFT_AUTH_URL: z.url().default(MICROSOFT_ENDPOINTS.authUrl),
    MICROSOFT_TOKEN_URL: z.url().default(MICROSOFT_ENDPOINTS.tokenUrl),
    MICROSOFT_GRAPH_BASE_URL: z.url().default(MICROSOFT_ENDPOINTS.graphBaseUrl),
  })
  .superRefine((env, ctx) => {
    if (!env.SIGNING_SECRET && !env.SIGNING_SECRET_PARAM) {
      ctx.addIssue({
        code: "custom",
        path: ["SIGNING_SECRET"],
        message: "set SIGNING_SECRET or SIGNING_SECRET_PARAM",
      });
    }
    if (!env.TOKEN_KEY && !env.TOKEN_KMS_KEY_ID) {
      ctx.addIssue({
        code: "custom",
        path: ["TOKEN_KEY"],
        message: "set TOKEN_KEY or TOKEN_KMS_KEY_ID",
      });
    }
  });

export type Config = z.infer<typeof configSchema>;

/** The service's authorize page: SERVICE_AUTHORIZE_URL, or the API's origin's `/oauth/v2/authorize`. */
export const authorizeEndpointOf = (config: Config): string =>
  config.SERVICE_AUTHORIZE_URL ?? `${new URL(config.SERVICE_BASE_URL).origin}/oauth/v2/authorize`;

/** A calendar provider's OAuth client and endpoints (the secret in clear locally, else by SSM name). */
export interface ProviderSettings {
  clientId: string;
  secret: { clear: string } | { param: string };
  authUrl: string;
  tokenUrl: string;
  apiBaseUrl: string;
}

/** The settings when the client id and a secret (clear or SSM name) are both configured. */
function providerSettings(
  given: Omit<ProviderSettings, "clientId" | "secret"> & {
    clientId: string | undefined;
    clientSecret: string | undefined;
    clientSecretParam: string | undefined;
  },
): ProviderSettings | undefined {
  const { clientId, clientSecret, clientSecretParam, ...endpoints } = given;
  const secret =
    clientSecret !== undefined
      ? { clear: clientSecret }
      : clientSecretParam !== undefined
        ? { param: clientSecretParam }
        : undefined;
  if (clientId === undefined || secret === undefined) return undefined;
  return { clientId, secret, ...endpoints };
}

/** Google's OAuth client and endpoints, or undefined when Google calendars cannot be connected. */
export const googleSettingsOf = (config: Config): ProviderSettings | undefined =>
  providerSettings({
    clientId: config.GOOGLE_CLIENT_ID,
    clientSecret: config.GOOGLE_CLIENT_SECRET,
    clientSecretParam: config.GOOGLE_CLIENT_SECRET_PARAM,
    authUrl: config.GOOGLE_AUTH_URL,
    tokenUrl: config.GOOGLE_TOKEN_URL,
    apiBaseUrl: config.GOOGLE_API_BASE_URL,
  });

/** Microsoft's OAuth client and endpoints (apiBaseUrl: Graph), or undefined when not configured. */
export const microsoftSettingsOf = (config: Config): ProviderSettings | undefined =>
  providerSettings({
    clientId: config.MICROSOFT_CLIENT_ID,
    clientSecret: config.MICROSOFT_CLIENT_SECRET,
    clientSecretParam: config.MICROSOFT_CLIENT_SECRET_PARAM,
    authUrl: config.MICROSOFT_AUTH_URL,
    tokenUrl: config.MICROSOFT_TOKEN_URL,
    apiBaseUrl: config.MICROSOFT_GRAPH_BASE_URL,
  });

/** Thrown at cold start; `variables` names every missing or invalid variable. */
export class ConfigError extends Error {
  override name = "ConfigError";
  constructor(
    readonly variables: string[],
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The deployed function's configuration: its environment, read once per call. */
export const configFromEnvironment = (): Config => loadConfig(process.env);

/** Parses the environment. Values are never echoed in errors: some of them are secrets. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  // Empty strings count as unset, as `FOO= cmd` does in a shell.
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = configSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? "environment");
    const text =
      present[name] === undefined
        ? `${name} is missing${issue.code === "custom" ? ` (${issue.message})` : ""}`
        : `${name} is invalid: ${issue.message}`;
    return { name, text };
  });
  throw new ConfigError(
    problems.map((p) => p.name),
    `configuration: ${problems.map((p) => p.text).join("; ")}`,
    { cause: parsed.error },
  );
}
