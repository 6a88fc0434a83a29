import { parse as parseYaml } from "yaml";
import { ManifestParseError } from "../errors";

/** Line and column (both from 1) of a UTF-16 offset in `text`. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split("\n");
  return { line: lines.length, column: (lines[lines.length - 1]?.length ?? 0) + 1 };
}

/** JSON.parse's reason with its position as line and column ("at line 3, column 5"). */
function jsonErrorMessage(text: string, error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const position = /at position (\d+)/.exec(raw)?.[1];
  // "Unexpected end of JSON input" carries no position: the problem is at the end.
  const offset = position === undefined ? text.length : Number(position);
  const { line, column } = lineAndColumn(text, offset);
  const reason = raw.replace(/\s*in JSON at position \d+.*$/s, "").replace(/\s*\(line \d+.*$/s, "");
  return `${reason} at line ${line}, column ${column}`;
}

/**
 * Parses manifest text: JSON first, then YAML. Throws ManifestParseError (one-line message). Text
 * that starts with `{` or `[` is meant as JSON, so when YAML cannot read it either, the error is
 * JSON's (with line and column), not the YAML parser's.
 */
export function parseManifestText(text: string): unknown {
  let jsonError: unknown;
  try {
    return JSON.parse(text);
  } catch (error: unknown) {
    // Not JSON: YAML is a superset for documents, so try it next.
    jsonError = error;
  }
  const looksLikeJson = /^\s*[{[]/.test(text);
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: true });
  } catch (error: unknown) {
    if (looksLikeJson) {
      throw new ManifestParseError(
        `manifest is not valid JSON: ${jsonErrorMessage(text, jsonError)}`,
        { cause: jsonError },
      );
    }
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new ManifestParseError(`manifest is neither JSON nor YAML: ${reason}`, { cause: error });
  }
  if (doc === undefined || doc === null) {
    throw new ManifestParseError("manifest is empty");
  }
  return doc;
}
