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
 * | PUBLIC_BASE_URL       | no       | where people reach the app, e.g. https://pilot.example (links)   |
 * | SERVICE_CLIENT_ID     | rotation | the app's OAuth client id (refreshes rotating tokens)            |
 * | SERVICE_CLIENT_SECRET | one of   | its client secret, in clear (local)                              |
 * | SERVICE_CLIENT_SECRET_PARAM | these | SSM SecureString name holding it (AWS, the install's callback) |
 * | SERVICE_CLIENT_SECRET_SEALED | or  | it sealed like user tokens (AWS, the reconcilers' refreshes)     |
 * | LOG_LEVEL             | no       | DEBUG, INFO (default), WARN, ERROR, CRITICAL, SILENT             |
 */
const nonEmpty = z.string().trim().min(1);

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
    PUBLIC_BASE_URL: z.url().optional(),
    SERVICE_CLIENT_ID: nonEmpty.optional(),
    SERVICE_CLIENT_SECRET: nonEmpty.optional(),
    SERVICE_CLIENT_SECRET_PARAM: nonEmpty.optional(),
    SERVICE_CLIENT_SECRET_SEALED: nonEmpty.optional(),
    LOG_LEVEL: z.enum(["DEBUG", "INFO", "WARN", "ERROR", "CRITICAL", "SILENT"]).default("INFO"),
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
