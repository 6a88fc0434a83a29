import type { ExtraCommands } from "#lib/cli/main";
import { TOOLING_SPECS } from "./cli-specs";

/** `statuspilot bench` and `soak`, as bin/statuspilot.mjs hands them to the CLI (loaded on use). */
export const toolingCommands: ExtraCommands = {
  bench: { ...TOOLING_SPECS.bench, load: async () => (await import("./run")).run },
  soak: { ...TOOLING_SPECS.soak, load: async () => (await import("./soak")).run },
};
