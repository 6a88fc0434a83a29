import { Logger } from "@aws-lambda-powertools/logger";
import type { AppLog } from "#lib/app/compose/logger";
import type { Log } from "#lib/core/ports";

export type AppLogLevel = "DEBUG" | "INFO" | "WARN" | "ERROR";

const RANK: Record<AppLogLevel, number> = { DEBUG: 0, INFO: 1, WARN: 2, ERROR: 3 };

/**
 * An AppLog that writes the handlers' records to `sink` instead of Powertools' JSON on
 * stdout/stderr, so `npm start` prints readable lines; the local stack hands it to the
 * composition root as its log override. Keys appended per invocation (user, eventId, …) travel
 * with each record until reset.
 */
export function sinkAppLog(sink: Log, level: AppLogLevel): AppLog {
  let keys: Record<string, unknown> = {};
  const passes = (l: AppLogLevel) => RANK[l] >= RANK[level];
  const forward =
    (l: AppLogLevel, write: Log["info"]) => (message: string, data?: Record<string, unknown>) => {
      if (passes(l)) write(message, { ...keys, ...data });
    };
  return {
    // AppLog exposes its Powertools logger; this one is silent, every record goes to `sink`.
    logger: new Logger({ serviceName: "statuspilot", logLevel: "SILENT" }),
    appendKeys: (more) => {
      keys = { ...keys, ...more };
    },
    resetKeys: () => {
      keys = {};
    },
    debug: forward("DEBUG", (m, d) => sink.debug(m, d)),
    info: forward("INFO", (m, d) => sink.info(m, d)),
    warn: forward("WARN", (m, d) => sink.warn(m, d)),
    error: forward("ERROR", (m, d) => sink.error(m, d)),
  };
}
