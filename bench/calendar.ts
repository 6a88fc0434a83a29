import { createHash } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ICAL from "ical.js";
import nodeIcal from "node-ical";
import { expand } from "#lib/calendar/expand";
import { generateFeed } from "./fixtures/generate-feed";
import { runJsonChild } from "./support/json-child";

/**
 * Calendar benchmark: one generated feed, a 14-day window, three engines:
 *  (a) ours: lib/calendar expand (fast-forwards unbounded series to the window);
 *  (b) the straightforward ical.js expansion: Event.iterator() from DTSTART, with
 *      relateException() for overrides;
 *  (c) node-ical 0.26 `expandRecurringEvent` (rrule.js `between` underneath).
 * Each variant runs in a fresh child process so its peak RSS is its own.
 */
type Variant = "a" | "b" | "c";
const VARIANTS: Record<Variant, string> = {
  a: "statuspilot (ical.js, windowed)",
  b: "ical.js iterate from DTSTART",
  c: "node-ical expandRecurringEvent",
};

const WINDOW_START = Date.UTC(2026, 2, 2);
const WINDOW_MS = 14 * 86_400_000;
const USER_ZONE = "Europe/Berlin";

interface Sizes {
  events: number;
  series: number;
  runs: number;
}
const sizes = (quick: boolean): Sizes =>
  quick ? { events: 300, series: 30, runs: 3 } : { events: 5000, series: 300, runs: 7 };

type Key = string;
const key = (uid: string, start: number, end: number): Key =>
  `${uid}|${new Date(start).toISOString()}|${new Date(end).toISOString()}`;

function runOurs(text: string, from: number, to: number): Key[] {
  return expand(text, { from, to, userZone: USER_ZONE }).occurrences.map((o) =>
    key(o.uid, o.start, o.end),
  );
}

function runIcalStraight(text: string, from: number, to: number): Key[] {
  const root = new ICAL.Component(ICAL.parse(text));
  for (const vtz of root.getAllSubcomponents("vtimezone")) {
    const tzid = vtz.getFirstPropertyValue("tzid");
    // TimezoneService is global; registering the same definition again is harmless.
    if (typeof tzid === "string" && !ICAL.TimezoneService.has(tzid)) {
      ICAL.TimezoneService.register(vtz);
    }
  }
  const masters = new Map<string, ICAL.Event>();
  const exceptions: ICAL.Component[] = [];
  for (const comp of root.getAllSubcomponents("vevent")) {
    if (comp.hasProperty("recurrence-id")) exceptions.push(comp);
    // Without `exceptions: []` ical.js relates every override of the feed to every event,
    // regardless of UID (strictExceptions only applies to relateException calls).
    else {
      const event = new ICAL.Event(comp, { strictExceptions: true, exceptions: [] });
      masters.set(String(comp.getFirstPropertyValue("uid")), event);
    }
  }
  for (const ex of exceptions) {
    masters.get(String(ex.getFirstPropertyValue("uid")))?.relateException(ex);
  }
  const out: Key[] = [];
  for (const event of masters.values()) {
    if (!event.isRecurring()) {
      const s = event.startDate.toJSDate().getTime();
      const e = event.endDate.toJSDate().getTime();
      if (s < to && e > from) out.push(key(event.uid, s, e));
      continue;
    }
    const it = event.iterator();
    for (let next = it.next(); next; next = it.next()) {
      const details = event.getOccurrenceDetails(next);
      const s = details.startDate.toJSDate().getTime();
      if (next.toJSDate().getTime() >= to && s >= to) break;
      if (details.item.component.getFirstPropertyValue("status") === "CANCELLED") continue;
      const e = details.endDate.toJSDate().getTime();
      if (s < to && e > from) out.push(key(event.uid, s, e));
    }
  }
  return out;
}

function runNodeIcal(text: string, from: number, to: number): Key[] {
  const data = nodeIcal.sync.parseICS(text);
  const out: Key[] = [];
  for (const item of Object.values(data)) {
    if (item?.type !== "VEVENT") continue;
    const instances = nodeIcal.expandRecurringEvent(item, {
      from: new Date(from),
      to: new Date(to),
      expandOngoing: true,
    });
    for (const inst of instances) {
      if (inst.event.status === "CANCELLED") continue;
      const s = inst.start.getTime();
      const e = inst.end.getTime();
      if (s < to && e > from) out.push(key(String(item.uid), s, e));
    }
  }
  return out;
}

export const calendarEngines: Record<Variant, (text: string, from: number, to: number) => Key[]> = {
  a: runOurs,
  b: runIcalStraight,
  c: runNodeIcal,
};

interface ChildResult {
  variant: Variant;
  medianMs: number;
  peakRssMb: number;
  occurrences: number;
  digest: string;
}

/** Runs one variant in this process (the child side). */
export function measureVariant(variant: Variant, quick: boolean): ChildResult {
  const { events, series, runs } = sizes(quick);
  const text = generateFeed({ events, series, windowStart: WINDOW_START });
  const times: number[] = [];
  let keys: Key[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    keys = calendarEngines[variant](text, WINDOW_START, WINDOW_START + WINDOW_MS);
    times.push(performance.now() - t0);
  }
  times.sort((x, y) => x - y);
  const unique = [...new Set(keys)].sort();
  return {
    variant,
    medianMs: times[Math.floor(times.length / 2)] ?? Number.NaN,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    occurrences: unique.length,
    digest: createHash("sha256").update(unique.join("\n")).digest("hex").slice(0, 16),
  };
}

const selfPath = fileURLToPath(import.meta.url);

const runChild = (variant: Variant, quick: boolean): Promise<ChildResult> =>
  runJsonChild<ChildResult>(
    selfPath,
    ["--variant", variant, ...(quick ? ["--quick"] : [])],
    `bench variant ${variant}`,
  );

export async function runCalendarBench(opts: { quick?: boolean }): Promise<{
  rows: Array<Record<string, string | number | boolean>>;
  table: string;
}> {
  const quick = opts.quick ?? false;
  const results: ChildResult[] = [];
  for (const v of ["a", "b", "c"] as const) results.push(await runChild(v, quick));
  const ours = results[0] as ChildResult;
  const identical = results.every((r) => r.digest === ours.digest);
  const { events, series, runs } = sizes(quick);
  const rows = results.map((r) => ({
    bench: "calendar",
    variant: `(${r.variant}) ${VARIANTS[r.variant]}`,
    events,
    series,
    runs,
    median_ms: Math.round(r.medianMs * 10) / 10,
    ratio_vs_ours: Math.round((r.medianMs / ours.medianMs) * 10) / 10,
    peak_rss_mb: Math.round(r.peakRssMb),
    occurrences: r.occurrences,
    identical_to_ours: r.digest === ours.digest,
  }));
  const header = ["variant", "median ms", "× ours", "peak RSS MB", "occurrences", "identical"];
  const body = rows.map((r) => [
    r.variant,
    String(r.median_ms),
    String(r.ratio_vs_ours),
    String(r.peak_rss_mb),
    String(r.occurrences),
    r.identical_to_ours ? "yes" : "no",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? "").length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
  const table = [
    `calendar: ${events} VEVENTs (${series} recurring series from years back), 14-day window, median of ${runs}`,
    fmt(header),
    ...body.map(fmt),
    `all three identical: ${identical ? "yes" : "no"}`,
  ].join("\n");
  return { rows, table };
}

// Child entry: `node --import tsx bench/calendar.ts --variant a [--quick]` prints one JSON line.
if (process.argv[1] && path.resolve(process.argv[1]) === selfPath) {
  const i = process.argv.indexOf("--variant");
  const variant = process.argv[i + 1] as Variant | undefined;
  if (variant && variant in calendarEngines) {
    process.stdout.write(
      `${JSON.stringify(measureVariant(variant, process.argv.includes("--quick")))}\n`,
    );
  }
}
