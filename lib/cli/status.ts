import { parseArgs } from "node:util";
import { CLI_SPECS, cliUsage } from "./command-specs";
import type { CliIo } from "./io";

const USAGE = cliUsage("status");
const EXIT_UNAVAILABLE = 69;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Instants print in this machine's zone, as the live log of `statuspilot start` does. */
const at = (epochMs: number): string => {
  const d = new Date(epochMs);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};

const describeStatus = (s: unknown): string => {
  if (!isRecord(s)) return "none";
  const shown = [s.emoji, s.text].filter((x) => typeof x === "string" && x !== "").join(" ");
  if (shown === "") return "empty";
  const exp =
    typeof s.expiration === "number" && s.expiration > 0 ? ` until ${at(s.expiration * 1000)}` : "";
  return `"${shown}"${exp}`;
};

/** Where an observation of the actual status came from (lib/core's ObservationSource). */
const SOURCE_WORDS: Record<string, string> = {
  ours: "set by Statuspilot",
  manual: "set by hand",
  expired: "cleared when it expired",
  // The reconciler read the profile right before a write.
  read: "seen on the profile",
  unknown: "not seen yet",
};

const describeSource = (source: string): string => SOURCE_WORDS[source] ?? source;

/** Renders a value of the status view: statuses as statuses, instants as ISO, the rest as JSON. */
const describe = (key: string, value: unknown): string => {
  if (value === null || value === undefined) return "none";
  if (typeof value === "number" && /At$|^next/i.test(key)) return at(value);
  if (isRecord(value) && ("text" in value || "emoji" in value)) return describeStatus(value);
  // An observation: { status, observedAt, source }.
  if (isRecord(value) && isRecord(value.status)) {
    const source = typeof value.source === "string" ? ` (${describeSource(value.source)})` : "";
    return `${describeStatus(value.status)}${source}`;
  }
  return typeof value === "string" ? value : JSON.stringify(value);
};

/**
 * `statuspilot status USER`: asks the running local stack (`npm start`, possibly in another
 * terminal) for the user's desired and actual status, the override and the next transition.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed: { values: { team?: string; port?: string }; positionals: string[] };
  try {
    parsed = parseArgs({
      args,
      options: CLI_SPECS.status.options,
      allowPositionals: true,
      strict: true,
    });
  } catch (error: unknown) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 64;
  }
  const [user, ...extra] = parsed.positionals;
  const port = Number(parsed.values.port ?? "3000");
  if (!user || extra.length > 0 || !Number.isInteger(port) || port <= 0 || port > 65535) {
    io.err(USAGE);
    return 64;
  }
  const query = parsed.values.team ? `?team=${encodeURIComponent(parsed.values.team)}` : "";
  const url = `http://127.0.0.1:${port}/_local/status/${encodeURIComponent(user)}${query}`;
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  } catch {
    io.err(`no local stack answers on 127.0.0.1:${port}; start one with \`npm start\``);
    return EXIT_UNAVAILABLE;
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok || !isRecord(body)) {
    const message =
      isRecord(body) && typeof body.message === "string" ? body.message : `HTTP ${response.status}`;
    io.err(message);
    // 409: the user id is in more than one team, and `--team` must say which.
    if (response.status === 409) return 64;
    return response.status === 404 ? 1 : EXIT_UNAVAILABLE;
  }
  const view = body.view;
  if (!isRecord(view)) {
    // The stack answered but its app keeps no status for the user: not a success.
    io.err(`no user ${String(body.user)} in team ${String(body.team)}`);
    return 1;
  }
  io.out(
    `${String(body.user)} (${String(body.team)}) at ${typeof body.now === "number" ? at(body.now) : "?"}`,
  );
  io.out(`  on the profile   ${describeStatus(body.profile)}`);
  for (const push of Array.isArray(body.pushes) ? body.pushes.filter(isRecord) : []) {
    const expiry = typeof push.expiresAt === "number" ? `, expires ${at(push.expiresAt)}` : "";
    io.out(`  push ${String(push.sourceId).padEnd(11)} ${String(push.state)}${expiry}`);
  }
  for (const [key, value] of Object.entries(view)) {
    if (key === "key" || key === "team" || key === "user" || key === "calendars") continue;
    io.out(`  ${key.padEnd(16)} ${describe(key, value)}`);
  }
  // Addresses come redacted from the stack (scheme, host, a hint): they are credentials.
  const calendars = Array.isArray(view.calendars) ? view.calendars.filter(isRecord) : [];
  for (const [i, c] of calendars.entries()) {
    const label = i === 0 ? "calendars" : "";
    io.out(`  ${label.padEnd(16)} ${String(c.id)} (${String(c.kind)}) ${String(c.address)}`);
  }
  return 0;
}
