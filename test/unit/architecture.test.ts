/**
 * The structural rules of issue 10 ("Done when"), read from the source tree with the TypeScript
 * parser. Each import counts, `import type` included: a type import is still a dependency of the
 * design, even though the bundler erases it.
 *
 * Rules:
 * 1. No file under lib/ or functions/ is longer than 400 lines. Generated files
 *    (`*.generated.ts`) are exempt.
 * 2. Every handler file (functions/http/*.ts, functions/queue/*.ts, functions/schedule/*.ts) is
 *    25 lines or fewer.
 * 3. There is no import cycle among the scanned files (lib/, functions/, devstack/, emulator/).
 * 4. At most one import runs upward. The layers, bottom to top (an import within a layer, or
 *    down, is fine):
 *      0 domain    lib/core: the pure domain and its ports
 *      1 adapters  lib/calendar, lib/http, lib/schema, lib/service, lib/store
 *      2 use cases lib/app (use cases, composition)
 *      3 webhooks  lib/webhooks (request handling behind the handlers)
 *      4 functions functions/ (the Lambda entry points)
 *      5 tooling   devstack/, emulator/, infra/; then lib/local (6), lib/cli (7), bench/ (8) and
 *                  test/ (9), each driving the ones below it (they run the
 *                  product; it never needs them). bench/, infra/ and test/ are not scanned, but an
 *                  import of them from a scanned file is seen, and runs upward.
 *    Upward imports listed in KNOWN_EXCEPTIONS are counted apart; of the others, none is allowed
 *    (MAX_UPWARD_IMPORTS), and each one is reported.
 *    A file under lib/ in no listed folder is a violation of its own: place it in the table.
 * 5. lib/core imports nothing impure: only other lib/core files and the packages in
 *    CORE_PACKAGES (no node:*, no AWS SDK, no lib/store, no lib/app).
 *
 * KNOWN_EXCEPTIONS names each violation that existed when these rules were written, with the
 * rule it breaks. The test fails for any violation not listed, and for any listed one that no
 * longer occurs, so the list can only shrink: when you fix one, delete its entry.
 * A cycle is listed by one of its imports (`file` imports `to`): the test drops the listed
 * imports, then requires the rest of the graph to be free of cycles, and requires each listed
 * import to still close a cycle.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const MAX_FILE_LINES = 400;
const MAX_HANDLER_LINES = 25;
const MAX_UPWARD_IMPORTS = 0;
const SCANNED_ROOTS = ["lib", "functions", "devstack", "emulator"];
const HANDLER_FOLDERS = ["functions/http", "functions/queue", "functions/schedule"];
/** Pure packages the domain may use: zod describes data and has no side effects. */
const CORE_PACKAGES = new Set(["zod"]);

/** Path prefix → layer rank; the longest matching prefix wins. */
const LAYERS: Record<string, number> = {
  "lib/core/": 0,
  "lib/calendar/": 1,
  "lib/schema/": 1,
  "lib/service/": 1,
  "lib/store/": 1,
  // Request shapes, refusal errors, signatures and channel tokens: what both the calendar
  // providers' push checks and the webhooks need, so it sits below both.
  "lib/http/": 1,
  "lib/app/": 2,
  "lib/webhooks/": 3,
  // The pages, sessions and OAuth state of the front door: HTTP-facing, like the webhooks.
  "lib/web/": 3,
  "functions/": 4,
  // The tooling has floors of its own: the local runtime and the emulators run what the stack
  // (lib/local) puts together; the CLI drives the stack; the benchmarks and the soak drive all.
  "devstack/": 5,
  "emulator/": 5,
  "infra/": 5,
  "lib/local/": 6,
  "lib/cli/": 7,
  "bench/": 8,
  "test/": 9,
};

type Rule =
  | "file-length"
  | "handler-length"
  | "cycle"
  | "upward-import"
  | "impure-core"
  | "no-layer";

interface Violation {
  rule: Rule;
  file: string;
  /** The imported file or package, for import rules. */
  to?: string;
  detail: string;
}

interface KnownException {
  rule: Rule;
  file: string;
  to?: string;
  /** Why it is still here, and which part of issue 10 removes it. */
  why: string;
}

const KNOWN_EXCEPTIONS: KnownException[] = [];

// --- reading the tree ---------------------------------------------------------------------------

interface ImportEdge {
  from: string;
  /** A repository-relative file, or a package name when `isPackage`. */
  to: string;
  isPackage: boolean;
}

interface SourceTree {
  root: string;
  files: Map<string, string>;
  imports: ImportEdge[];
}

function listSourceFiles(root: string, dir: string): string[] {
  const absolute = path.join(root, dir);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(?:ts|tsx|mts)$/.test(entry.name))
    .filter((entry) => !entry.name.endsWith(".d.ts"))
    .map((entry) =>
      path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"),
    )
    .sort();
}

/** Every module specifier of a file: static imports, re-exports, `import()` and `require()`. */
function specifiersOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      found.push(node.moduleReference.expression.text);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === "require")) &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = node.argument.literal;
      if (ts.isStringLiteral(literal)) found.push(literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** package.json "imports" (`#alias/*`), so aliased imports are followed like relative ones. */
function readImportAliases(root: string): Array<[string, string]> {
  const manifestPath = path.join(root, "package.json");
  if (!existsSync(manifestPath)) return [];
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { imports?: unknown };
  if (manifest.imports === null || typeof manifest.imports !== "object") return [];
  return Object.entries(manifest.imports).flatMap(([alias, target]) => {
    // Conditional targets ({ types, import, default }): any string among them names the file.
    const value =
      typeof target === "string"
        ? target
        : Object.values((target ?? {}) as Record<string, unknown>).find(
            (v) => typeof v === "string",
          );
    return typeof value === "string" ? [[alias, value] as [string, string]] : [];
  });
}

function resolveFile(
  root: string,
  candidate: string,
  known: Map<string, string>,
): string | undefined {
  const normal = path.posix.normalize(candidate);
  const stem = normal.replace(/\.(?:m?js)$/, "");
  for (const option of [normal, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${stem}/index.ts`]) {
    if (known.has(option)) return option;
    if (existsSync(path.join(root, option)) && /\.(?:ts|tsx|mts)$/.test(option)) return option;
  }
  return undefined;
}

/** The repository file a specifier names, a package name, or undefined (outside the scan). */
function resolveSpecifier(
  tree: { root: string; files: Map<string, string> },
  aliases: Array<[string, string]>,
  from: string,
  specifier: string,
): { to: string; isPackage: boolean } | undefined {
  if (specifier.startsWith(".")) {
    const to = resolveFile(
      tree.root,
      path.posix.join(path.posix.dirname(from), specifier),
      tree.files,
    );
    return to === undefined ? undefined : { to, isPackage: false };
  }
  if (specifier.startsWith("#")) {
    for (const [alias, target] of aliases) {
      const star = alias.indexOf("*");
      const matches =
        star < 0
          ? specifier === alias
          : specifier.startsWith(alias.slice(0, star)) && specifier.endsWith(alias.slice(star + 1));
      if (!matches) continue;
      const middle =
        star < 0 ? "" : specifier.slice(star, specifier.length - (alias.length - star - 1));
      const to = resolveFile(tree.root, target.replace("*", middle), tree.files);
      if (to !== undefined) return { to, isPackage: false };
    }
    return undefined;
  }
  const name = specifier.startsWith("node:")
    ? specifier
    : specifier
        .split("/")
        .slice(0, specifier.startsWith("@") ? 2 : 1)
        .join("/");
  return { to: name, isPackage: true };
}

function readTree(root: string): SourceTree {
  const files = new Map<string, string>();
  for (const dir of SCANNED_ROOTS) {
    for (const file of listSourceFiles(root, dir))
      files.set(file, readFileSync(path.join(root, file), "utf8"));
  }
  const aliases = readImportAliases(root);
  const imports: ImportEdge[] = [];
  for (const [file, text] of files) {
    for (const specifier of new Set(specifiersOf(file, text))) {
      const target = resolveSpecifier({ root, files }, aliases, file, specifier);
      if (target !== undefined) imports.push({ from: file, ...target });
    }
  }
  return { root, files, imports };
}

// --- the rules ----------------------------------------------------------------------------------

function lineCount(text: string): number {
  const lines = text.split("\n");
  return lines[lines.length - 1] === "" ? lines.length - 1 : lines.length;
}

function layerOf(file: string): number | undefined {
  const prefix = Object.keys(LAYERS)
    .filter((p) => file.startsWith(p))
    .sort((a, b) => b.length - a.length)[0];
  return prefix === undefined ? undefined : LAYERS[prefix];
}

function lengthViolations(tree: SourceTree): Violation[] {
  const violations: Violation[] = [];
  for (const [file, text] of tree.files) {
    const lines = lineCount(text);
    const isProduct = file.startsWith("lib/") || file.startsWith("functions/");
    if (isProduct && !/\.generated\.ts$/.test(file) && lines > MAX_FILE_LINES) {
      violations.push({
        rule: "file-length",
        file,
        detail: `${lines} lines (max ${MAX_FILE_LINES})`,
      });
    }
    if (HANDLER_FOLDERS.includes(path.posix.dirname(file)) && lines > MAX_HANDLER_LINES) {
      violations.push({
        rule: "handler-length",
        file,
        detail: `${lines} lines (a handler has at most ${MAX_HANDLER_LINES})`,
      });
    }
  }
  return violations;
}

function layerViolations(tree: SourceTree): Violation[] {
  const violations: Violation[] = [];
  for (const file of tree.files.keys()) {
    if (file.startsWith("lib/") && layerOf(file) === undefined) {
      violations.push({ rule: "no-layer", file, detail: "is in no layer of LAYERS" });
    }
  }
  for (const { from, to, isPackage } of tree.imports) {
    const fromLayer = layerOf(from);
    if (from.startsWith("lib/core/")) {
      const pure = isPackage ? CORE_PACKAGES.has(to) : to.startsWith("lib/core/");
      if (!pure) {
        violations.push({ rule: "impure-core", file: from, to, detail: `lib/core imports ${to}` });
      }
    }
    if (isPackage || fromLayer === undefined) continue;
    const toLayer = layerOf(to);
    if (toLayer !== undefined && toLayer > fromLayer) {
      violations.push({
        rule: "upward-import",
        file: from,
        to,
        detail: `layer ${fromLayer} imports layer ${toLayer}`,
      });
    }
  }
  return violations;
}

/** The graph of file-to-file imports, without the imports in `dropped` ("from -> to"). */
function fileGraph(tree: SourceTree, dropped: Set<string>): Map<string, string[]> {
  const graph = new Map<string, string[]>([...tree.files.keys()].map((file) => [file, []]));
  for (const { from, to, isPackage } of tree.imports) {
    if (isPackage || dropped.has(`${from} -> ${to}`) || !graph.has(to)) continue;
    graph.get(from)?.push(to);
  }
  return graph;
}

/** A path of imports from `start` to `goal`, both included, or undefined. */
function importPath(
  graph: Map<string, string[]>,
  start: string,
  goal: string,
): string[] | undefined {
  const cameFrom = new Map<string, string>([[start, start]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const next of graph.get(node) ?? []) {
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, node);
      if (next === goal) {
        const route = [goal];
        while (route[0] !== start) route.unshift(cameFrom.get(route[0] as string) as string);
        return route;
      }
      queue.push(next);
    }
  }
  return undefined;
}

/** One cycle per strongly connected component (Tarjan), each as a closed path a → … → a. */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    const selfLoop = graph.get(node)?.includes(node) ?? false;
    if (component.length > 1 || selfLoop) {
      const first = [...component].sort()[0] as string;
      const next = (graph.get(first) ?? []).find((n) => component.includes(n)) as string;
      const back = importPath(graph, next, first) ?? [next, first];
      found.push(next === first ? [first, first] : [first, ...back]);
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return found;
}

function cycleViolations(tree: SourceTree, known: KnownException[]): Violation[] {
  const listed = known.filter((k) => k.rule === "cycle" && k.to !== undefined);
  const dropped = new Set(listed.map((k) => `${k.file} -> ${k.to}`));
  const violations: Violation[] = cycles(fileGraph(tree, dropped)).map((cycle) => ({
    rule: "cycle",
    file: cycle[0] as string,
    to: cycle[1] as string,
    detail: `import cycle: ${cycle.join(" → ")}`,
  }));
  // A listed import still counts as a violation while it closes a cycle in the full graph.
  const full = fileGraph(tree, new Set());
  for (const { file, to } of listed) {
    const closes =
      (full.get(file) ?? []).includes(to as string) && importPath(full, to as string, file);
    if (closes) {
      violations.push({
        rule: "cycle",
        file,
        to,
        detail: `import cycle: ${file} → ${closes.join(" → ")}`,
      });
    }
  }
  return violations;
}

function allViolations(tree: SourceTree, known: KnownException[]): Violation[] {
  return [...lengthViolations(tree), ...layerViolations(tree), ...cycleViolations(tree, known)];
}

// --- comparing with the known exceptions --------------------------------------------------------

const keyOf = (v: { rule: Rule; file: string; to?: string }) =>
  v.to === undefined ? `${v.rule}: ${v.file}` : `${v.rule}: ${v.file} -> ${v.to}`;

/** Human-readable problems: violations not listed, and listed exceptions that no longer occur. */
function compare(violations: Violation[], known: KnownException[]): string[] {
  const listed = new Set(known.map(keyOf));
  const occurring = new Set(violations.map(keyOf));
  const problems: string[] = [];
  const unlistedUpward = violations.filter(
    (v) => v.rule === "upward-import" && !listed.has(keyOf(v)),
  );
  for (const v of violations) {
    if (listed.has(keyOf(v))) continue;
    // The rule allows MAX_UPWARD_IMPORTS upward imports besides the listed ones.
    if (v.rule === "upward-import" && unlistedUpward.length <= MAX_UPWARD_IMPORTS) continue;
    problems.push(`new violation, ${keyOf(v)}: ${v.detail}`);
  }
  for (const k of known) {
    if (!occurring.has(keyOf(k))) {
      problems.push(`fixed, delete it from KNOWN_EXCEPTIONS: ${keyOf(k)}`);
    }
  }
  return problems;
}

// --- the tests ----------------------------------------------------------------------------------

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

describe("architecture (issue 10)", () => {
  const tree = readTree(repoRoot);

  it("reads the source tree and follows its imports", () => {
    expect(tree.files.has("lib/core/types.ts")).toBe(true);
    expect(
      tree.imports.some((edge) => edge.from.startsWith("functions/") && edge.to.startsWith("lib/")),
    ).toBe(true);
  });

  it("has no violation outside KNOWN_EXCEPTIONS, and no listed exception that is fixed", () => {
    expect(compare(allViolations(tree, KNOWN_EXCEPTIONS), KNOWN_EXCEPTIONS)).toEqual([]);
  });

  it("lists each known exception once, with a reason", () => {
    const keys = KNOWN_EXCEPTIONS.map(keyOf);
    expect(new Set(keys).size).toBe(keys.length);
    for (const k of KNOWN_EXCEPTIONS) expect(k.why.trim(), keyOf(k)).not.toBe("");
  });

  it("groups lib/app into capability folders that import each other without a circle", () => {
    expect(
      [...tree.files.keys()].filter((f) => /^lib\/app\/[^/]+\.ts$/.test(f)).length,
    ).toBeLessThan(10);
    expect(cycles(folderGraph(tree, "lib/app/"))).toEqual([]);
  });
});

/** The import graph between the folders right under `root` (a file directly in it is its own node). */
function folderGraph(tree: SourceTree, root: string): Map<string, string[]> {
  const folderOf = (file: string): string | undefined =>
    file.startsWith(root) ? root + file.slice(root.length).split("/")[0] : undefined;
  const graph = new Map<string, string[]>();
  for (const { from, to, isPackage } of tree.imports) {
    const a = folderOf(from);
    const b = isPackage ? undefined : folderOf(to);
    if (a === undefined || b === undefined || a === b) continue;
    graph.set(a, [...(graph.get(a) ?? []), b]);
    if (!graph.has(b)) graph.set(b, []);
  }
  return graph;
}

describe("the architecture checker, on a small tree of its own", () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "architecture-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(scratch, file)), { recursive: true });
    writeFileSync(path.join(scratch, file), text);
  };
  const lines = (n: number) =>
    `${Array.from({ length: n }, (_, i) => `export const v${i} = ${i};`).join("\n")}\n`;
  write("package.json", JSON.stringify({ imports: { "#app/*": "./lib/app/*.ts" } }));
  write("lib/core/long.ts", lines(401));
  write("lib/core/fits.ts", lines(400));
  write("lib/schema/big.generated.ts", lines(900));
  write("functions/http/long.ts", lines(26));
  write("functions/http/short.ts", `import { a } from "#app/a";\n${lines(24)}`);
  write("lib/app/a.ts", `import { b } from "./b";\nexport const a = b;\n`);
  write("lib/app/b.ts", `import type { c } from "./c";\nexport const b = 1;\n`);
  write("lib/app/c.ts", `export { a as c } from "./a";\n`);
  write(
    "lib/core/impure.ts",
    `import { readFile } from "node:fs";\nimport { a } from "../app/a";\nimport * as z from "zod";\n`,
  );
  write("lib/store/one.ts", `import { a } from "../app/a";\n`);
  write("lib/misc/orphan.ts", "export {};\n");
  const scratchTree = readTree(scratch);
  const found = allViolations(scratchTree, []).map(keyOf);

  it("flags a 401-line file but not a 400-line or a generated one", () => {
    expect(found).toContain("file-length: lib/core/long.ts");
    expect(found).not.toContain("file-length: lib/core/fits.ts");
    expect(found).not.toContain("file-length: lib/schema/big.generated.ts");
  });

  it("flags a 26-line handler but not a 25-line one", () => {
    expect(found).toContain("handler-length: functions/http/long.ts");
    expect(found).not.toContain("handler-length: functions/http/short.ts");
  });

  it("reports an import cycle with its path, type imports and re-exports included", () => {
    const cycle = allViolations(scratchTree, []).find((v) => v.rule === "cycle");
    expect(cycle?.detail).toBe(
      "import cycle: lib/app/a.ts → lib/app/b.ts → lib/app/c.ts → lib/app/a.ts",
    );
  });

  it("accepts a listed cycle import, and says so when the listed import no longer closes a cycle", () => {
    const listed: KnownException[] = [
      { rule: "cycle", file: "lib/app/c.ts", to: "lib/app/a.ts", why: "test" },
    ];
    const withListed = allViolations(scratchTree, listed);
    expect(compare(withListed, listed).filter((p) => p.includes("cycle"))).toEqual([]);
    const stale: KnownException[] = [
      { rule: "cycle", file: "lib/app/b.ts", to: "lib/core/fits.ts", why: "test" },
    ];
    expect(compare(allViolations(scratchTree, stale), stale)).toContain(
      "fixed, delete it from KNOWN_EXCEPTIONS: cycle: lib/app/b.ts -> lib/core/fits.ts",
    );
  });

  it("flags impure imports in lib/core, but not zod", () => {
    expect(found).toContain("impure-core: lib/core/impure.ts -> node:fs");
    expect(found).toContain("impure-core: lib/core/impure.ts -> lib/app/a.ts");
    expect(found).not.toContain("impure-core: lib/core/impure.ts -> zod");
  });

  it("flags every upward import; follows package.json aliases", () => {
    expect(found).toContain("upward-import: lib/store/one.ts -> lib/app/a.ts");
    expect(found).toContain("upward-import: lib/core/impure.ts -> lib/app/a.ts");
    expect(found).not.toContain("upward-import: functions/http/short.ts -> lib/app/a.ts");
    expect(scratchTree.imports).toContainEqual({
      from: "functions/http/short.ts",
      to: "lib/app/a.ts",
      isPackage: false,
    });
    const upward = allViolations(scratchTree, []).filter((v) => v.rule === "upward-import");
    expect(compare(upward.slice(0, 1), [])).toHaveLength(1);
    expect(compare(upward, [])).toHaveLength(2);
  });

  it("flags a lib/ folder that is in no layer", () => {
    expect(found).toContain("no-layer: lib/misc/orphan.ts");
  });

  it("fails a listed exception that no longer occurs", () => {
    const listed: KnownException[] = [
      { rule: "file-length", file: "lib/core/fits.ts", why: "test" },
    ];
    expect(compare([], listed)).toEqual([
      "fixed, delete it from KNOWN_EXCEPTIONS: file-length: lib/core/fits.ts",
    ]);
  });
});
