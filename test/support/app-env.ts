/**
 * The least environment `loadConfig` accepts (table, service, signing secret, token key), for a
 * test to add the settings it is about.
 */
export const MINIMAL_APP_ENV = {
  TABLE_NAME: "t",
  SERVICE_BASE_URL: "https://svc.example/api",
  SIGNING_SECRET: "s",
  TOKEN_KEY: "k",
} as const;

// Nothing listens on port 9 (discard) of this reserved test address: any I/O would fail.
export const UNREACHABLE = "http://192.0.2.1:9";

/** A complete app environment whose every endpoint is UNREACHABLE: composing it must do no I/O. */
export const UNREACHABLE_APP_ENV = {
  TABLE_NAME: "t",
  DYNAMODB_ENDPOINT: UNREACHABLE,
  SERVICE_BASE_URL: `${UNREACHABLE}/api`,
  SIGNING_SECRET: "s",
  TOKEN_KEY: Buffer.alloc(32, 1).toString("base64"),
  TRANSITION_QUEUE_URL: `${UNREACHABLE}/transition`,
  SYNC_QUEUE_URL: `${UNREACHABLE}/sync`,
  LOG_LEVEL: "SILENT",
} as const;
