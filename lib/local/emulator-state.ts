/**
 * Keeps the service emulator's workspace state in the stack's state directory, so a restart finds
 * the tokens it issued through OAuth, the statuses it holds and the manifests pushed to it.
 */
import { existsSync, readFileSync } from "node:fs";
import { writeFileAtomically } from "#devstack/state";
import {
  type EmulatorSnapshot,
  parseSnapshot,
  type RunningEmulator,
  type Workspace,
} from "#emulator/server";
import type { Log } from "#lib/core/ports";

/** How often a changed state is written, so a killed process loses at most this much. */
export const EMULATOR_SAVE_EVERY_MS = 2000;

/**
 * The snapshot saved by an earlier run, or undefined (none yet, or one that cannot be used: then
 * the warning says why and the emulator starts from the workspace file). Our app's manifest is
 * left out: the stack points its events at this run's handlers, whose port may have changed.
 */
export function readEmulatorSnapshot(
  file: string,
  workspace: Workspace,
  ourAppId: string,
  log: Log,
): EmulatorSnapshot | undefined {
  if (!existsSync(file)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error: unknown) {
    const reason = `not JSON: ${error instanceof Error ? error.message : String(error)}`;
    log.warn("emulator state not restored; starting from the workspace file", { file, reason });
    return undefined;
  }
  const read = parseSnapshot(json, workspace);
  if (!read.ok) {
    log.warn("emulator state not restored; starting from the workspace file", {
      file,
      reason: read.reason,
    });
    return undefined;
  }
  return { ...read.snapshot, apps: read.snapshot.apps.filter((a) => a.id !== ourAppId) };
}

/**
 * Writes the emulator's state every `everyMs` when it changed, and once more at `stop()` (the
 * stack's close). The timer does not keep the process alive.
 */
export function keepEmulatorSnapshot(
  emulator: RunningEmulator,
  file: string,
  options: { everyMs?: number; log: Log },
): { stop(): void } {
  let written = "";
  const save = () => {
    const text = `${JSON.stringify(emulator.snapshot(), null, 2)}\n`;
    if (text === written) return;
    try {
      writeFileAtomically(file, text);
      written = text;
    } catch (error: unknown) {
      options.log.warn("emulator state not saved", {
        file,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };
  const timer = setInterval(save, options.everyMs ?? EMULATOR_SAVE_EVERY_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      save();
    },
  };
}
