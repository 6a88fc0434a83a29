import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { CalendarError } from "#lib/calendar/errors";
import { expand } from "#lib/calendar/expand";
import { DEFAULT_RULES } from "#lib/core/rules";
import { buildTimeline } from "#lib/core/timeline";
import type { Occurrence } from "#lib/core/types";
import { CLI_SPECS, cliUsage } from "./command-specs";
import { type CliIo, EXIT_UNREADABLE } from "./io";

const EXIT_USAGE = 64;

interface Inputs {
  occurrences: Occurrence[];
  from: number;
  to: number;
  tz: string;
}

/** Reads FILE and the window flags; on failure writes one line and returns the exit code. */
async function load(
  args: string[],
  io: CliIo,
  command: "expand" | "timeline",
): Promise<Inputs | number> {
  let parsed: ReturnType<typeof parseCliArgs>;
  try {
    parsed = parseCliArgs(args);
  } catch (error: unknown) {
    io.err(`calendar ${command}: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT_USAGE;
  }
  const { values, positionals } = parsed;
  const file = positionals[0];
  if (!file || !values.from || !values.to) {
    io.err(cliUsage(`calendar ${command}`));
    return EXIT_USAGE;
  }
  const from = Date.parse(values.from);
  const to = Date.parse(values.to);
  if (Number.isNaN(from) || Number.isNaN(to)) {
    io.err(`calendar ${command}: --from and --to must be ISO-8601 instants`);
    return EXIT_USAGE;
  }
  const tz = values.tz ?? "UTC";
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error: unknown) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? "read error";
    io.err(`calendar ${command}: cannot read ${file}: ${code}`);
    return EXIT_UNREADABLE;
  }
  try {
    const { occurrences, skipped, warnings } = expand(text, {
      from,
      to,
      userZone: tz,
      userEmails: values.email ?? [],
    });
    for (const s of skipped) {
      io.err(`skipped ${s.uid ?? "(no uid)"}${s.summary ? ` "${s.summary}"` : ""}: ${s.reason}`);
    }
    for (const w of warnings) io.err(`warning ${w.uid ?? "(feed)"}: ${w.message}`);
    return { occurrences, from, to, tz };
  } catch (error: unknown) {
    if (error instanceof CalendarError) {
      io.err(`calendar ${command}: ${file}: ${error.message}`);
      return EXIT_UNREADABLE;
    }
    throw error;
  }
}

const parseCliArgs = (args: string[]) =>
  parseArgs({
    args,
    allowPositionals: true,
    // Both subcommands take the same options.
    options: CLI_SPECS["calendar expand"].options,
  });

const iso = (ms: number): string => new Date(ms).toISOString();

/** `calendar expand`: the occurrences as JSON, sorted by start, instants in UTC ISO-8601. */
export async function runExpand(args: string[], io: CliIo): Promise<number> {
  const inputs = await load(args, io, "expand");
  if (typeof inputs === "number") return inputs;
  const rows = inputs.occurrences.map((o) => ({ ...o, start: iso(o.start), end: iso(o.end) }));
  io.out(JSON.stringify(rows, null, 2));
  return 0;
}

/** `calendar timeline`: the status blocks {start, end, text, emoji, kind, expiration}. */
export async function runTimeline(args: string[], io: CliIo): Promise<number> {
  const inputs = await load(args, io, "timeline");
  if (typeof inputs === "number") return inputs;
  const blocks = buildTimeline(inputs.occurrences, {
    rules: DEFAULT_RULES,
    tz: inputs.tz,
    from: inputs.from,
    to: inputs.to,
  });
  const rows = blocks.map((b) => ({
    start: iso(b.start),
    end: iso(b.end),
    text: b.text,
    emoji: b.emoji,
    kind: b.kind,
    expiration: b.expiration,
  }));
  io.out(JSON.stringify(rows, null, 2));
  return 0;
}
