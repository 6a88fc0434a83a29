import { readFile } from "node:fs/promises";
import { ManifestParseError, parseManifestText, validateManifest } from "#lib/schema/manifest";
import { cliUsage } from "./command-specs";
import { type CliIo, EXIT_UNREADABLE } from "./io";

const EXIT_USAGE = 64;

/**
 * `statuspilot manifest validate FILE`: prints `valid` (exit 0), or the problems as a JSON array
 * of {message, pointer} (exit 1). An unreadable or unparseable file exits 2 with one stderr line.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const [file, ...rest] = args;
  if (file === undefined || rest.length > 0) {
    io.err(cliUsage("manifest validate"));
    return EXIT_USAGE;
  }
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : String(error);
    io.err(`cannot read ${file}: ${reason.split("\n")[0]}`);
    return EXIT_UNREADABLE;
  }
  let doc: unknown;
  try {
    doc = parseManifestText(text);
  } catch (error: unknown) {
    if (!(error instanceof ManifestParseError)) throw error;
    io.err(`${file}: ${error.message}`);
    return EXIT_UNREADABLE;
  }
  const problems = validateManifest(doc);
  if (problems.length === 0) {
    io.out("valid");
    return 0;
  }
  io.out(JSON.stringify(problems, null, 2));
  return 1;
}
