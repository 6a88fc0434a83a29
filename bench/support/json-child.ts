import { spawn } from "node:child_process";
import path from "node:path";

/**
 * Runs `node --import tsx <script> ...args` in a fresh process, so what it measures (peak RSS
 * above all) is its own, and answers the JSON of its last stdout line.
 */
export function runJsonChild<T>(script: string, args: string[], what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
      cwd: path.resolve(path.dirname(script), ".."),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const line = stdout.trim().split("\n").pop() ?? "";
      try {
        if (code !== 0) throw new Error(`exit ${code}`);
        resolve(JSON.parse(line) as T);
      } catch (error: unknown) {
        reject(
          new Error(`${what} failed: ${stderr.trim().split("\n")[0] ?? ""}`, { cause: error }),
        );
      }
    });
  });
}
