import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadWorkspace } from "#emulator/server";
import type { ManualClock } from "#lib/core/clock";
import type { StackOptions } from "#lib/local/stack-types";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The local stack as the tests start it: the demo workspace, its user U001 (UTC) reading one
 * calendar, any free ports, and a clock the test moves. `extra` adds or overrides options.
 */
export function demoStackOptions(
  calendarUrl: string,
  clock: ManualClock,
  extra: Partial<StackOptions> = {},
): StackOptions {
  return {
    workspace: loadWorkspace(path.join(repoRoot, "emulator/demo-workspace.json")),
    users: [
      {
        team: "T0DEMO",
        user: "U001",
        token: "xoxp-demo-U001",
        tz: "UTC",
        calendars: [calendarUrl],
      },
    ],
    port: 0,
    emulatorPort: 0,
    time: { mode: "manual", clock },
    ...extra,
  };
}
