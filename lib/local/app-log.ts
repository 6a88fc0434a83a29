import type { AppLog } from "../app/logger";
import type { Log } from "../core/ports";

export type AppLogLevel = "DEBUG" | "INFO" | "WARN" | "ERROR";

const RANK: Record<AppLogLevel, number> = { DEBUG: 0, INFO: 1, WARN: 2, ERROR: 3 };

/**
 * Sends the handlers' log records to `sink` instead of Powertools' JSON on stdout/stderr, so
 * `npm start` prints readable lines. The composition root offers no log override, so the
 * app's one AppLog object (shared by every handler and use case) is re-pointed in place; the
 * keys appended per invocation (user, eventId, …) travel with each record.
 */
export function routeAppLog(appLog: AppLog, sink: Log, level: AppLogLevel): void {
  let keys: Record<string, unknown> = {};
  const appendKeys = appLog.appendKeys.bind(appLog);
  const resetKeys = appLog.resetKeys.bind(appLog);
  const passes = (l: AppLogLevel) => RANK[l] >= RANK[level];
  const forward =
    (l: AppLogLevel, write: Log["info"]) => (message: string, data?: Record<string, unknown>) => {
      if (passes(l)) write(message, { ...keys, ...data });
    };
  Object.assign(appLog, {
    appendKeys: (more: Record<string, unknown>) => {
      keys = { ...keys, ...more };
      appendKeys(more);
    },
    resetKeys: () => {
      keys = {};
      resetKeys();
    },
    debug: forward("DEBUG", (m, d) => sink.debug(m, d)),
    info: forward("INFO", (m, d) => sink.info(m, d)),
    warn: forward("WARN", (m, d) => sink.warn(m, d)),
    error: forward("ERROR", (m, d) => sink.error(m, d)),
  } satisfies Partial<AppLog>);
}
