/**
 * Time is injected through a Clock: no module reads the machine's time but the clock adapter.
 * Checked on the syntax tree, so comments and strings that name the calls do not count.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SCANNED_ROOTS = ["lib", "functions", "devstack", "emulator"];

/** The reads each file may make, and why. */
const ALLOWED: Record<string, string[]> = {
  // The clock adapter itself: the time, and the monotonic work timer that bounds a feed's CPU.
  "lib/app/compose/system-clock.ts": ["Date.now()", "performance.now()"],
  // A timeout for real network calls, measured on the monotonic clock: elapsed time on the
  // wire, not the app's time.
  "lib/service/call-deadline.ts": ["performance.now()"],
};

/** `Date.now()`, `performance.now()` and an argument-less `new Date()` in a file's code. */
function clockReadsOf(fileName: string, text: string): string[] {
  const reads: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const call = node.expression.getText();
      if (call === "Date.now" || call === "performance.now") reads.push(`${call}()`);
    }
    if (
      ts.isNewExpression(node) &&
      node.expression.getText() === "Date" &&
      (node.arguments?.length ?? 0) === 0
    ) {
      reads.push("new Date()");
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true));
  return reads;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(repoRoot, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(?:ts|mts|mjs|js)$/.test(entry.name))
    .map((entry) => path.relative(repoRoot, path.join(entry.parentPath, entry.name)))
    .map((file) => file.split(path.sep).join("/"));
}

describe("reads of the machine's time", () => {
  it("finds the calls it looks for, and only in code", () => {
    const text =
      "// Date.now()\nconst a = Date.now(); const b = new Date(); const c = new Date(0);";
    expect(clockReadsOf("x.ts", text)).toEqual(["Date.now()", "new Date()"]);
  });

  it("happen only in the clock adapter (and the network calls' monotonic timeout)", () => {
    const found: Record<string, string[]> = {};
    for (const file of SCANNED_ROOTS.flatMap(sourceFiles)) {
      const text = readFileSync(path.join(repoRoot, file), "utf8");
      // Parse only the files that name a read (comments included), for speed.
      if (!/Date\.now|performance\.now|new Date\(\s*\)/.test(text)) continue;
      const reads = clockReadsOf(file, text);
      if (reads.length > 0) found[file] = [...new Set(reads)];
    }
    expect(found).toEqual(ALLOWED);
  });
});
