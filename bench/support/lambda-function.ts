import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { buildBundle, repoRoot } from "#infra/build";
import type { FunctionCode } from "./cpu-attribution";

/** What the bench reads of a deployed Lambda function: its memory, and the code it carries. */

/** A function's memory (MB) as serverless.yml deploys it: its own, or the provider's. */
export function functionMemoryMb(name: string): number {
  const doc = parse(readFileSync(path.join(repoRoot, "serverless.yml"), "utf8"), {
    logLevel: "silent",
  }) as {
    provider?: { memorySize?: unknown };
    functions?: Record<string, { memorySize?: unknown }>;
  };
  const own = doc.functions?.[name]?.memorySize;
  const provider = doc.provider?.memorySize;
  if (typeof own === "number") return own;
  if (typeof provider === "number") return provider;
  throw new Error(`serverless.yml gives ${name} no memorySize`);
}

const codeOf = new Map<string, Promise<FunctionCode>>();

/** The project files and packages a function's bundle holds (infra/build.ts's own bundling). */
export function functionCodeOf(name: string): Promise<FunctionCode> {
  let code = codeOf.get(name);
  if (code === undefined) {
    code = bundledCode(name);
    codeOf.set(name, code);
  }
  return code;
}

async function bundledCode(name: string): Promise<FunctionCode> {
  const dir = await mkdtemp(path.join(tmpdir(), "statuspilot-code-"));
  try {
    const report = await buildBundle(name, path.join(dir, "index.mjs"));
    const files = Object.keys(report.inputs).filter((f) => !f.includes("node_modules/"));
    return { files: new Set(files), packages: new Set(report.packages) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
