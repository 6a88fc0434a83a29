import { afterEach, describe, expect, it, vi } from "vitest";
import { createLog } from "../../../lib/app/logger";
import type { Log } from "../../../lib/core/ports";
import { routeAppLog } from "../../../lib/local/app-log";

type Record_ = { level: string; message: string; data: Record<string, unknown> | undefined };

const capturingSink = () => {
  const records: Record_[] = [];
  const put = (level: string) => (message: string, data?: Record<string, unknown>) =>
    records.push({ level, message, data });
  const sink: Log = {
    debug: put("debug"),
    info: put("info"),
    warn: put("warn"),
    error: put("error"),
  };
  return { sink, records };
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe("routeAppLog", () => {
  it("sends the app's records to the sink instead of the Powertools JSON logger", () => {
    // Prepare
    const appLog = createLog({ level: "DEBUG" });
    // The Powertools logger is what prints JSON lines; it must not be reached.
    const jsonWarn = vi.spyOn(appLog.logger, "warn").mockImplementation(() => {});
    const jsonError = vi.spyOn(appLog.logger, "error").mockImplementation(() => {});
    const { sink, records } = capturingSink();
    // Act
    routeAppLog(appLog, sink, "WARN");
    appLog.warn("acknowledged before recording finished", { retry: false });
    appLog.error("handler failed");
    // Assess
    expect(records).toEqual([
      { level: "warn", message: "acknowledged before recording finished", data: { retry: false } },
      { level: "error", message: "handler failed", data: {} },
    ]);
    expect(jsonWarn).not.toHaveBeenCalled();
    expect(jsonError).not.toHaveBeenCalled();
  });

  it("drops records below the level", () => {
    // Prepare
    const appLog = createLog({ level: "DEBUG" });
    const { sink, records } = capturingSink();
    routeAppLog(appLog, sink, "WARN");
    // Act
    appLog.debug("tick", { enqueued: 0 });
    appLog.info("sync done");
    // Assess
    expect(records).toEqual([]);
  });

  it("carries the keys appended per invocation until they are reset", () => {
    // Prepare
    const appLog = createLog({ level: "SILENT" });
    const { sink, records } = capturingSink();
    routeAppLog(appLog, sink, "INFO");
    // Act
    appLog.appendKeys({ user: "U001" });
    appLog.info("reconciled", { outcome: "set" });
    appLog.resetKeys();
    appLog.info("tick");
    // Assess
    expect(records.map((r) => r.data)).toEqual([{ user: "U001", outcome: "set" }, {}]);
  });
});
