import { describe, expect, it } from "vitest";
import type { Log } from "#lib/core/ports";
import { sinkAppLog } from "#lib/local/app-log";

type SinkRecord = { level: string; message: string; data: Record<string, unknown> | undefined };

const capturingSink = () => {
  const records: SinkRecord[] = [];
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

describe("sinkAppLog", () => {
  it("sends the app's records to the sink", () => {
    // Prepare
    const { sink, records } = capturingSink();
    const appLog = sinkAppLog(sink, "WARN");
    // Act
    appLog.warn("acknowledged before recording finished", { retry: false });
    appLog.error("handler failed");
    // Assess
    expect(records).toEqual([
      { level: "warn", message: "acknowledged before recording finished", data: { retry: false } },
      { level: "error", message: "handler failed", data: {} },
    ]);
  });

  it("drops records below the level", () => {
    // Prepare
    const { sink, records } = capturingSink();
    const appLog = sinkAppLog(sink, "WARN");
    // Act
    appLog.debug("tick", { enqueued: 0 });
    appLog.info("sync done");
    // Assess
    expect(records).toEqual([]);
  });

  it("carries the keys appended per invocation until they are reset", () => {
    // Prepare
    const { sink, records } = capturingSink();
    const appLog = sinkAppLog(sink, "INFO");
    // Act
    appLog.appendKeys({ user: "U001" });
    appLog.appendKeys({ sourceId: "cal1" });
    appLog.info("reconciled", { outcome: "set" });
    appLog.resetKeys();
    appLog.info("tick");
    // Assess
    expect(records.map((r) => r.data)).toEqual([
      { user: "U001", sourceId: "cal1", outcome: "set" },
      {},
    ]);
  });

  it("keeps its Powertools logger silent, so no JSON line is printed beside the sink's", () => {
    // Prepare
    const { sink } = capturingSink();
    // Act
    const appLog = sinkAppLog(sink, "DEBUG");
    // Assess
    expect(appLog.logger.getLevelName()).toBe("SILENT");
  });
});
