import { fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PushCostSample } from "./cost-push";
import type { CostSample } from "./cost-sim";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Runs one worker process (ICS users `indices`, or the push-backed user) with its counts. */
export function runWorker(indices: number[], days: number): Promise<CostSample>;
export function runWorker(indices: "push", days: number): Promise<PushCostSample>;
export function runWorker(
  indices: number[] | "push",
  days: number,
): Promise<CostSample | PushCostSample> {
  return new Promise((resolve, reject) => {
    const child = fork(
      path.join(repoRoot, "bench/support/cost-worker.ts"),
      [JSON.stringify(indices === "push" ? { push: true, days } : { indices, days })],
      {
        cwd: repoRoot,
        execArgv: ["--import", "tsx"],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      },
    );
    let result:
      | { ok: true; sample: CostSample | PushCostSample }
      | { ok: false; error: string }
      | undefined;
    child.on("message", (m) => {
      result = m as typeof result;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (result?.ok) resolve(result.sample);
      else reject(new Error(`cost worker failed (exit ${code}): ${result?.error ?? "no result"}`));
    });
  });
}
