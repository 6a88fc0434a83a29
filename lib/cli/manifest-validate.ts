import type { CliIo } from "./io";

// Placeholder until its owner lands the command.
export async function run(_args: string[], io: CliIo): Promise<number> {
  io.err("not implemented yet");
  return 70;
}
