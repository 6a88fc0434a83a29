import { describe, expect, it } from "vitest";
import { MetricsRecorder } from "#lib/app/metrics/recorder";
import { type SyncDeps, SyncError, type SyncSourceView, syncSource } from "#lib/app/sync/sync";
import { ManualClock } from "#lib/core/clock";
import { silentLog } from "#lib/core/ports";
import { DEFAULT_RULES } from "#lib/core/rules";
import type { SourceKind } from "#lib/core/source-kinds";

// A sync failure is a calendar read that failed (thrown, so the queue retries it) or that the
// calendar's host refused (skipped); each counts once, under the source's provider kind.

const NOW = Date.UTC(2026, 0, 1, 12, 0);
const msg = { team: "T1", user: "U1", sourceId: "work", reason: "poll" } as const;

const ICS = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "PRODID:-//test//EN",
  "BEGIN:VEVENT",
  "UID:a",
  "DTSTAMP:20260101T000000Z",
  "DTSTART:20260101T130000Z",
  "DTEND:20260101T133000Z",
  "SUMMARY:Review",
  "END:VEVENT",
  "END:VCALENDAR",
].join("\r\n");

function depsWith(kind: SourceKind, fetchFn: typeof fetch, metrics: MetricsRecorder): SyncDeps {
  const source: SyncSourceView = {
    kind,
    openUrl: async () => "https://cal.example/work.ics",
    tz: "UTC",
    emails: [],
    rules: DEFAULT_RULES,
  };
  return {
    clock: new ManualClock(NOW),
    log: silentLog,
    fetch: fetchFn,
    loadSource: async () => source,
    recordSourceSync: async () => undefined,
    applyTimeline: async () => undefined,
    expand: async (...args) => (await import("#lib/calendar/expand")).expand(...args),
    buildTimeline: () => [],
    metrics,
  };
}

const answering = (status: number, body = "") =>
  (async () => new Response(status === 304 ? null : body, { status })) as unknown as typeof fetch;

describe("sync failures per provider", () => {
  it("counts a read that failed, under the source's kind, and lets the error through", async () => {
    // Prepare
    const metrics = new MetricsRecorder();
    const unreachable = (async () => {
      throw new TypeError("fetch failed");
    }) as unknown as typeof fetch;
    // Act
    const sync = syncSource(depsWith("google", unreachable, metrics), msg);
    // Assess
    await expect(sync).rejects.toBeInstanceOf(SyncError);
    expect(metrics.valuesOf("SyncFailures", { provider: "google" })).toEqual([1]);
  });

  it("counts a read the calendar's host refused", async () => {
    // Prepare
    const metrics = new MetricsRecorder();
    // Act
    const outcome = await syncSource(depsWith("ics", answering(404), metrics), msg);
    // Assess
    expect(outcome.kind).toBe("skipped");
    expect(metrics.valuesOf("SyncFailures", { provider: "ics" })).toEqual([1]);
    expect(metrics.recorded().every((m) => m.unit === "Count")).toBe(true);
  });

  it("counts nothing for a read that worked", async () => {
    // Prepare
    const metrics = new MetricsRecorder();
    // Act
    const outcome = await syncSource(depsWith("ics", answering(200, ICS), metrics), msg);
    // Assess
    expect(outcome.kind).toBe("applied");
    expect(metrics.recorded()).toEqual([]);
  });
});
