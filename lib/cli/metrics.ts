import { parseArgs } from "node:util";
import type { MetricSeries } from "#lib/app/metrics/recorder";
import { CLI_SPECS, cliUsage } from "./command-specs";
import type { CliIo } from "./io";

const USAGE = cliUsage("metrics");
const EXIT_UNAVAILABLE = 69;

/** A series as `GET /_local/metrics` serves it; its unit is read as any string. */
type Series = Omit<MetricSeries, "unit"> & { unit: string };

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const isSeries = (v: unknown): v is Series =>
  isRecord(v) &&
  typeof v.name === "string" &&
  typeof v.unit === "string" &&
  isRecord(v.dimensions) &&
  typeof v.count === "number" &&
  typeof v.total === "number";

/** One line per series: `ProfileSetCalls{outcome=set}  12`, durations with their spread. */
export function describeSeries(s: Series): string {
  const dims = Object.entries(s.dimensions)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  const label = dims === "" ? s.name : `${s.name}{${dims}}`;
  if (s.unit === "Milliseconds") {
    return `${label.padEnd(36)} count ${s.count}  p50 ${s.p50 ?? "?"} ms  p99 ${s.p99 ?? "?"} ms  max ${s.max ?? "?"} ms`;
  }
  return `${label.padEnd(36)} ${s.total}`;
}

/**
 * `statuspilot metrics`: asks the running local stack (`npm start`) for the metrics its
 * functions recorded, the ones they send to CloudWatch on AWS, and prints them.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed: { values: { port?: string; json?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args,
      options: CLI_SPECS.metrics.options,
      allowPositionals: true,
      strict: true,
    });
  } catch (error: unknown) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 64;
  }
  const port = Number(parsed.values.port ?? "3000");
  if (parsed.positionals.length > 0 || !Number.isInteger(port) || port <= 0 || port > 65535) {
    io.err(USAGE);
    return 64;
  }
  let response: Response;
  try {
    response = await fetch(`http://127.0.0.1:${port}/_local/metrics`, {
      signal: AbortSignal.timeout(5000),
    });
  } catch {
    io.err(`no local stack answers on 127.0.0.1:${port}; start one with \`npm start\``);
    return EXIT_UNAVAILABLE;
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok || !isRecord(body) || !Array.isArray(body.series)) {
    io.err(`the local stack answered HTTP ${response.status} without metrics`);
    return EXIT_UNAVAILABLE;
  }
  if (parsed.values.json === true) {
    io.out(JSON.stringify(body, null, 2));
    return 0;
  }
  const series = body.series.filter(isSeries);
  if (series.length === 0) {
    io.out("no metrics recorded yet");
    return 0;
  }
  for (const s of series) io.out(describeSeries(s));
  return 0;
}
