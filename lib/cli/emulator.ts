import { parseArgs } from "node:util";
import { systemClock } from "#lib/app/compose/system-clock";
import type { Log } from "#lib/core/ports";
import { CLI_SPECS, cliUsage } from "./command-specs";
import { type CliIo, EXIT_UNREADABLE } from "./io";

const USAGE = cliUsage("emulator");

/** One JSON line per record; the emulator already redacts tokens in what it logs. */
function lineLog(io: CliIo): Log {
  const write = (level: string) => (message: string, data?: Record<string, unknown>) =>
    io.out(JSON.stringify({ level, message, ...data }));
  return { debug() {}, info: write("info"), warn: write("warn"), error: write("error") };
}

export async function run(args: string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  let values: {
    port?: string;
    workspace?: string;
    faults?: string;
    seed?: string;
    "body-timeout-ms"?: string;
  };
  try {
    ({ values } = parseArgs({
      args,
      options: CLI_SPECS.emulator.options,
      strict: true,
    }));
  } catch (err: unknown) {
    io.err(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return 64;
  }
  const port = Number(values.port ?? "4010");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    io.err(`--port must be an integer from 0 to 65535\n${USAGE}`);
    return 64;
  }
  if (values.workspace === undefined) {
    io.err(`--workspace is required\n${USAGE}`);
    return 64;
  }
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  if (seed !== undefined && !Number.isInteger(seed)) {
    io.err(`--seed must be an integer\n${USAGE}`);
    return 64;
  }
  const bodyTimeoutMs =
    values["body-timeout-ms"] === undefined ? undefined : Number(values["body-timeout-ms"]);
  if (bodyTimeoutMs !== undefined && !(Number.isInteger(bodyTimeoutMs) && bodyTimeoutMs > 0)) {
    io.err(`--body-timeout-ms must be a positive integer\n${USAGE}`);
    return 64;
  }
  const { loadWorkspace, parseFaults, startEmulator } = await import("#emulator/server");
  let workspace: ReturnType<typeof loadWorkspace>;
  let faults: ReturnType<typeof parseFaults> | undefined;
  try {
    workspace = loadWorkspace(values.workspace);
    faults = values.faults === undefined ? undefined : parseFaults(values.faults);
  } catch (err: unknown) {
    io.err(err instanceof Error ? err.message : String(err));
    return EXIT_UNREADABLE;
  }
  const emulator = await startEmulator({
    workspace,
    port,
    clock: systemClock,
    ...(faults !== undefined ? { faults } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(bodyTimeoutMs !== undefined ? { bodyTimeoutMs } : {}),
    log: lineLog(io),
  });
  io.out(`emulator listening on ${emulator.apiBase} (team ${workspace.team.id})`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    if (signal) signal.addEventListener("abort", stop, { once: true });
    else {
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    }
  });
  await emulator.close();
  return 0;
}
