import { Logger } from "@aws-lambda-powertools/logger";
import type { Log } from "#lib/core/ports";

/** Keys whose values never reach a log line, however deeply nested. */
const SECRET_KEY = /token|secret|signature|authorization|password|api[-_]?key|client[-_]?state/i;

export const REDACTED = "[redacted]";

/** Replaces secret-looking values; exported so tests and the local stack can reuse it. */
export function redactSecrets(key: string, value: unknown): unknown {
  if (key !== "" && SECRET_KEY.test(key) && value !== undefined && value !== null) {
    return REDACTED;
  }
  return value;
}

/** Our Log port over the Powertools Logger, plus per-invocation keys such as the user. */
export interface AppLog extends Log {
  appendKeys(keys: Record<string, unknown>): void;
  resetKeys(): void;
  readonly logger: Logger;
}

export function createLog(opts: {
  level?: "DEBUG" | "INFO" | "WARN" | "ERROR" | "CRITICAL" | "SILENT";
  serviceName?: string;
}): AppLog {
  const logger = new Logger({
    serviceName: opts.serviceName ?? "statuspilot",
    logLevel: opts.level ?? "INFO",
    jsonReplacerFn: redactSecrets,
  });
  return {
    logger,
    debug: (message, data) => logger.debug(message, data ?? {}),
    info: (message, data) => logger.info(message, data ?? {}),
    warn: (message, data) => logger.warn(message, data ?? {}),
    error: (message, data) => logger.error(message, data ?? {}),
    appendKeys: (keys) => logger.appendKeys(keys),
    resetKeys: () => logger.resetKeys(),
  };
}
