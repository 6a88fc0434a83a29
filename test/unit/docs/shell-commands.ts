import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { CommandSpec } from "#lib/cli/command-specs";

/**
 * The shell commands a document shows, and whether each is one that a test or CI runs: a package
 * script, or a `statuspilot` command given only options its parser takes (its spec, the same
 * one `--help` prints), or a test file that exists. Curl lines are returned parsed, for the test
 * to send. Nothing here imports the code the commands run, only their specs.
 */

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

export const readRepoFile = (file: string): string =>
  readFileSync(path.join(repoRoot, file), "utf8");

/** One command of a code block: its words, after quotes are taken off. */
export interface ShellCommand {
  file: string;
  /** The 1-based line of the block the command starts on. */
  line: number;
  words: string[];
}

const SHELL_FENCES = new Set(["sh", "bash", "shell"]);
const OPERATORS = new Set(["&&", "||", "|", ";"]);

/** Splits one logical shell line into words and operators; a `#` starting a word ends it. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? "";
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end === -1) throw new Error(`unclosed ${c} in: ${line}`);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === "\\") {
      word = (word ?? "") + (line[i + 1] ?? "");
      i++;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "#" && word === undefined) {
      break;
    } else if ("&|;".includes(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      const two = line.slice(i, i + 2);
      const op = OPERATORS.has(two) ? two : c;
      words.push(op);
      i += op.length - 1;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Every command in the `sh`, `bash` and `shell` code blocks of a markdown file. */
export function shellCommands(file: string, markdown = readRepoFile(file)): ShellCommand[] {
  const commands: ShellCommand[] = [];
  const lines = markdown.split("\n");
  let inShell = false;
  let inFence = false;
  let pending: { line: number; text: string } | undefined;
  lines.forEach((text, index) => {
    const fence = /^\s*```(\w*)/.exec(text);
    if (fence) {
      inFence = !inFence;
      inShell = inFence && SHELL_FENCES.has(fence[1] ?? "");
      return;
    }
    if (!inShell) return;
    const joined = pending ? `${pending.text} ${text.trim()}` : text;
    const start = pending?.line ?? index + 1;
    if (joined.endsWith("\\")) {
      pending = { line: start, text: joined.slice(0, -1) };
      return;
    }
    pending = undefined;
    let words: string[] = [];
    for (const w of [...shellWords(joined), ";"]) {
      if (!OPERATORS.has(w)) {
        words.push(w);
        continue;
      }
      if (words.length > 0) commands.push({ file, line: start, words });
      words = [];
    }
  });
  return commands;
}

/** A curl line, as a request. */
export interface CurlRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
}

export function curlRequest(words: readonly string[]): CurlRequest {
  const headers: Record<string, string> = {};
  let method: string | undefined;
  let body: string | undefined;
  let target: string | undefined;
  for (let i = 1; i < words.length; i++) {
    const w = words[i] ?? "";
    const next = () => words[++i] ?? "";
    if (w === "-H" || w === "--header") {
      const [name = "", ...value] = next().split(":");
      headers[name.trim().toLowerCase()] = value.join(":").trim();
    } else if (w === "-d" || w === "--data" || w === "--data-raw") body = next();
    else if (w === "-X" || w === "--request") method = next();
    else if (w === "-s" || w === "--silent" || w === "-S" || w === "-f") continue;
    else if (w.startsWith("-")) throw new Error(`curl option ${w} is not understood here`);
    else target = w;
  }
  if (target === undefined) throw new Error("curl without a URL");
  const url = new URL(/^https?:\/\//.test(target) ? target : `http://${target}`);
  return {
    method: method ?? (body === undefined ? "GET" : "POST"),
    url,
    headers,
    ...(body === undefined ? {} : { body }),
  };
}

/** What a command's usage line requires: its positionals, and the options outside brackets. */
export function usageRequires(spec: CommandSpec): { positionals: number; options: string[] } {
  let depth = 0;
  let positionals = 0;
  const options: string[] = [];
  let valueNext = false;
  for (const token of spec.usage.split(/\s+/).filter((t) => t !== "")) {
    const bare = token.replace(/^\[+/, "").replace(/\]*(\.\.\.)?$/, "");
    depth += token.length - token.replace(/^\[+/, "").length;
    if (depth === 0) {
      const option = /^--([\w-]+)$/.exec(bare)?.[1];
      if (option !== undefined && spec.options[option] !== undefined) {
        options.push(option);
        valueNext = spec.options[option]?.type === "string";
      } else if (valueNext) valueNext = false;
      else if (/^[A-Z]+$/.test(bare)) positionals++;
    }
    depth -= (/(\]*)(\.\.\.)?$/.exec(token)?.[1] ?? "").length;
  }
  return { positionals, options };
}

/** What the checks read: the package's scripts, the commands, and the code's text. */
export interface CommandWorld {
  scripts: Record<string, string>;
  commands: Record<string, CommandSpec>;
  /** Whether the code (not the docs) names this environment variable. */
  readsEnv(name: string): boolean;
  exists(file: string): boolean;
}

const HELP = new Set(["--help", "-h"]);

/** Why `statuspilot <args>` would not run as shown, or undefined when its parser takes it. */
export function statuspilotProblem(
  args: readonly string[],
  world: CommandWorld,
): string | undefined {
  const two = args.slice(0, 2).join(" ");
  const name = world.commands[two] ? two : world.commands[args[0] ?? ""] ? args[0] : undefined;
  const spec = name === undefined ? undefined : world.commands[name];
  if (name === undefined || spec === undefined) return `no statuspilot command "${two}"`;
  const rest = args.slice(name.split(" ").length);
  if (rest.some((a) => HELP.has(a))) return undefined;
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...rest],
      options: spec.options,
      strict: true,
      allowPositionals: true,
    });
  } catch (error: unknown) {
    return `statuspilot ${name}: ${error instanceof Error ? error.message : String(error)}`;
  }
  const needs = usageRequires(spec);
  if (parsed.positionals.length !== needs.positionals) {
    return `statuspilot ${name} takes ${needs.positionals} positional(s), not ${parsed.positionals.length}`;
  }
  const missing = needs.options.filter((o) => parsed.values[o] === undefined);
  if (missing.length > 0) return `statuspilot ${name} needs --${missing.join(", --")}`;
  return undefined;
}

const STATUSPILOT_SCRIPT = /^node bin\/statuspilot\.mjs\b\s*(.*)$/;

/** What `npm <words>` would run, or why a test or CI does not run it. */
function npmProblem(args: readonly string[], world: CommandWorld): string | undefined {
  const [verb, ...rest] = args;
  if (verb === "ci") {
    return rest.length === 0 && world.exists("package-lock.json")
      ? undefined
      : "npm ci takes no arguments here, and needs package-lock.json";
  }
  const script = verb === "run" ? rest.shift() : verb;
  if (script === undefined || (verb !== "run" && verb !== "start" && verb !== "test")) {
    return `npm ${verb ?? ""}: not a package script`;
  }
  const body = world.scripts[script];
  if (body === undefined) return `package.json has no script "${script}"`;
  const dashes = rest.indexOf("--");
  if (dashes === -1 && rest.length > 0) return `npm ${script}: arguments go after --`;
  const extra = dashes === -1 ? [] : rest.slice(dashes + 1);
  const statuspilot = STATUSPILOT_SCRIPT.exec(body);
  if (statuspilot)
    return statuspilotProblem(
      [...(statuspilot[1] ?? "").split(/\s+/).filter(Boolean), ...extra],
      world,
    );
  return extra.length > 0 ? `npm ${script} passes no arguments to what it runs` : undefined;
}

/**
 * Why a shown command is not one a test or CI runs, or undefined when it is. A curl line is
 * left to the caller, which sends it (`curlRequest`).
 */
export function commandProblem(words: readonly string[], world: CommandWorld): string | undefined {
  let rest = [...words];
  if (rest[0] === "export") rest = rest.slice(1);
  while (/^[A-Z_][A-Z0-9_]*=/.test(rest[0] ?? "")) {
    const name = (rest.shift() ?? "").split("=")[0] ?? "";
    if (!world.readsEnv(name)) return `no code reads the environment variable ${name}`;
  }
  if (rest.length === 0) return undefined;
  const [program, ...args] = rest;
  if (program === "npm") return npmProblem(args, world);
  if (program === "statuspilot") return statuspilotProblem(args, world);
  if (program === "node" && args[0] === "bin/statuspilot.mjs") {
    return statuspilotProblem(args.slice(1), world);
  }
  if (program === "npx" && args[0] === "statuspilot")
    return statuspilotProblem(args.slice(1), world);
  if (program === "npx" && args[0] === "vitest" && args[1] === "run") {
    const missing = args.slice(2).filter((a) => !a.startsWith("-") && !world.exists(a));
    return missing.length === 0 ? undefined : `no test file ${missing.join(", ")}`;
  }
  if (program === "curl") return undefined;
  return `\`${rest.join(" ")}\` is not a command that a test or CI runs`;
}

const CODE_DIRS = ["bin", "bench", "devstack", "emulator", "functions", "infra", "lib", "test"];
/** These checks themselves: what they name is not read by the code. */
const NOT_CODE = path.join("test", "unit", "docs");

/** Every word of the code (TypeScript and JavaScript files), for `readsEnv`. */
function codeText(): string {
  const parts: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (rel === NOT_CODE) continue;
      if (entry.isDirectory()) walk(rel);
      else if (/\.(ts|tsx|mjs|cjs|js)$/.test(entry.name)) parts.push(readRepoFile(rel));
    }
  };
  for (const dir of CODE_DIRS) walk(dir);
  return parts.join("\n");
}

/** The world of this repository. */
export function repoWorld(commands: Record<string, CommandSpec>): CommandWorld {
  const pkg = JSON.parse(readRepoFile("package.json")) as { scripts: Record<string, string> };
  let code: string | undefined;
  return {
    scripts: pkg.scripts,
    commands,
    readsEnv: (name) => {
      code ??= codeText();
      return new RegExp(`\\b${name}\\b`).test(code);
    },
    exists: (file) => existsSync(path.join(repoRoot, file)),
  };
}
