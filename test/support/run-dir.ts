import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** A directory that lives as long as the test run, shared by every worker. */
    runDir: string;
  }
}

/**
 * vitest's globalSetup: one scratch directory per run, for what test files may make once and
 * share (the packaged stack, see osls-package.ts), removed when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(path.join(tmpdir(), "statuspilot-run-"));
  project.provide("runDir", dir);
  return () => rm(dir, { recursive: true, force: true });
}
