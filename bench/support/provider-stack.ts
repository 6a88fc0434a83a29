import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadWorkspace } from "#emulator/server";
import type { ManualClock } from "#lib/core/clock";
import type { StackOptions } from "#lib/local/stack-types";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The local stack as the push runs start it (the renewal soaks, the push-backed cost user): the
 * demo workspace with nobody configured (the run installs and connects its own user), any free
 * ports and the run's clock. `extra` names the providers, schedules and logging.
 */
export function providerStackOptions(
  clock: ManualClock,
  extra: Partial<StackOptions>,
): StackOptions {
  return {
    workspace: loadWorkspace(path.join(repoRoot, "emulator/demo-workspace.json")),
    users: [],
    port: 0,
    emulatorPort: 0,
    time: { mode: "manual", clock },
    ...extra,
  };
}
