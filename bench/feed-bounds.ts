import path from "node:path";
import { fileURLToPath } from "node:url";
import { systemWorkTimer } from "#lib/app/compose/system-clock";
import { expandPaced } from "#lib/calendar/expand";
import { MAX_FEED_BYTES } from "#lib/calendar/feed-body";
import { EXPANSION_CPU_BUDGET_MS } from "#lib/calendar/work-budget";
import { generateFeed } from "./fixtures/generate-feed";
import { hostileFeed } from "./fixtures/hostile-feed";
import { runJsonChild } from "./support/json-child";

/**
 * A feed's bounded work (issue 29): the expansion the sync runs (paced, on the system's work
 * timer, with every cap) of a real-shaped feed beside feeds built to explode, each in a fresh
 * process so its peak RSS is its own. `--quick` reads smaller feeds and holds the explosive
 * ones to a 1 s budget instead of EXPANSION_CPU_BUDGET_MS.
 */

const WINDOW_START = Date.UTC(2026, 2, 2);
const DAY = 86_400_000;
const QUICK_BUDGET_MS = 1_000;

type Row = "real" | "issue29" | "worst";

const LABELS: Record<Row, (quick: boolean) => string> = {
  real: (quick) => `real-shaped, ${quick ? "2,000" : "20,000"} events`,
  issue29: () => "issue 29's: 500 unbounded MINUTELY events",
  worst: (quick) =>
    `worst under the caps: ${quick ? "1" : "10"} MB of SECONDLY rules from 2015, overrides, COUNTs, EXDATE lists, MINUTELY`,
};

/**
 * The feed that costs most under the caps: as many events as the byte cap holds, first ones
 * that cost the most iterations for nothing (SECONDLY series from years back, each asked again
 * by its overrides), then millions-long COUNTs with deep EXDATE lists, then unbounded MINUTELY
 * series; its parse alone is the largest the sync can be handed.
 */
export function worstFeedUnderTheCaps(around: number, maxBytes: number): string {
  const unit = { secondly: 1_000, overrides: 500, counted: 5, minutely: 500 };
  const sample = hostileFeed({ around, exdates: 1_000, ...unit });
  // As many times the sample's mix as the cap holds, with a little room for rounding.
  const scale = (maxBytes / sample.length) * 0.98;
  const scaled = Object.fromEntries(
    Object.entries(unit).map(([part, n]) => [part, Math.max(1, Math.floor(n * scale))]),
  );
  const text = hostileFeed({ around, exdates: 1_000, ...scaled });
  if (text.length > maxBytes) throw new Error(`worst feed is ${text.length} bytes, over the cap`);
  return text;
}

function feedOf(row: Row, quick: boolean): string {
  switch (row) {
    case "real":
      return quick
        ? generateFeed({ events: 2_000, series: 120, windowStart: WINDOW_START })
        : generateFeed({ events: 20_000, series: 1_200, windowStart: WINDOW_START });
    case "issue29":
      return hostileFeed({ around: WINDOW_START, minutely: 500 });
    case "worst":
      return worstFeedUnderTheCaps(WINDOW_START, quick ? 1024 * 1024 : MAX_FEED_BYTES);
  }
}

interface ChildResult {
  row: Row;
  bytes: number;
  wallMs: number;
  cpuMs: number;
  peakRssMb: number;
  occurrences: number;
  limit: string;
  /** The longest the event loop waited for the expansion (a 5 ms timer's worst lateness). */
  longestStallMs: number;
}

/** Expands one row's feed as the sync would (the child side). */
async function measureRow(row: Row, quick: boolean): Promise<ChildResult> {
  const text = feedOf(row, quick);
  let longestStallMs = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    longestStallMs = Math.max(longestStallMs, now - last - 5);
    last = now;
  }, 5);
  const started = performance.now();
  const result = await expandPaced(text, {
    from: WINDOW_START - DAY,
    to: WINDOW_START + 14 * DAY,
    userZone: "Europe/Berlin",
    pace: { timer: systemWorkTimer },
    ...(quick && row !== "real" ? { limits: { timeBudgetMs: QUICK_BUDGET_MS } } : {}),
  });
  const wallMs = performance.now() - started;
  clearInterval(ticker);
  return {
    row,
    bytes: text.length,
    wallMs,
    cpuMs: result.spentMs ?? Number.NaN,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    occurrences: result.occurrences.length,
    limit: result.truncated?.limit ?? "none",
    longestStallMs,
  };
}

const selfPath = fileURLToPath(import.meta.url);

export async function runFeedBoundsBench(opts: { quick?: boolean }): Promise<{
  rows: Array<Record<string, string | number>>;
  table: string;
}> {
  const quick = opts.quick ?? false;
  const results: ChildResult[] = [];
  for (const row of ["real", "issue29", "worst"] as const) {
    results.push(
      await runJsonChild<ChildResult>(
        selfPath,
        ["--row", row, ...(quick ? ["--quick"] : [])],
        `feed bounds ${row}`,
      ),
    );
  }
  const round = (n: number) => Math.round(n);
  const rows = results.map((r) => ({
    bench: "feed_bounds",
    feed: LABELS[r.row](quick),
    kb: round(r.bytes / 1024),
    wall_ms: round(r.wallMs),
    cpu_ms: round(r.cpuMs),
    peak_rss_mb: round(r.peakRssMb),
    occurrences: r.occurrences,
    cap_reached: r.limit,
    longest_stall_ms: round(r.longestStallMs),
  }));
  const header = [
    "feed",
    "KB",
    "wall ms",
    "CPU ms",
    "peak RSS MB",
    "occurrences",
    "cap",
    "stall ms",
  ];
  const body = rows.map((r) => [
    r.feed,
    String(r.kb),
    String(r.wall_ms),
    String(r.cpu_ms),
    String(r.peak_rss_mb),
    String(r.occurrences),
    r.cap_reached,
    String(r.longest_stall_ms),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? "").length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
  const budget = quick ? QUICK_BUDGET_MS : EXPANSION_CPU_BUDGET_MS;
  const table = [
    `feed bounds: the sync's paced expansion, each feed in a fresh process, CPU budget ${budget} ms for the explosive ones`,
    fmt(header),
    ...body.map(fmt),
  ].join("\n");
  return { rows, table };
}

// Child entry: `node --import tsx bench/feed-bounds.ts --row worst [--quick]` prints one JSON line.
if (process.argv[1] && path.resolve(process.argv[1]) === selfPath) {
  const i = process.argv.indexOf("--row");
  const row = process.argv[i + 1] as Row | undefined;
  if (row && row in LABELS) {
    const result = await measureRow(row, process.argv.includes("--quick"));
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
}
