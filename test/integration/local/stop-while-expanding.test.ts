import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { hostileFeed } from "#bench/fixtures/hostile-feed";
import { systemClock } from "#lib/app/compose/system-clock";
import { pushHook } from "../../e2e/support";

/**
 * `statuspilot start` as a developer runs it, in its own process: while the demo user's
 * calendar, replaced by a feed built to explode, is being read, the stack still answers, and
 * SIGTERM (Ctrl-C alike) stops it within 2 s instead of after minutes of expansion.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const stateDir = mkdtempSync(path.join(tmpdir(), "statuspilot-stop-"));
let child: ChildProcess | undefined;

afterAll(() => {
  if (child?.exitCode === null) child.kill("SIGKILL");
  rmSync(stateDir, { recursive: true, force: true });
});

/** Starts the stack and answers its handlers' and demo calendar's addresses once it is up. */
async function startStackProcess(): Promise<{
  url: string;
  calendar: string;
  exited: Promise<number | null>;
}> {
  const proc = spawn(
    process.execPath,
    [
      "bin/statuspilot.mjs",
      "start",
      "--port",
      "0",
      "--emulator-port",
      "0",
      "--state-dir",
      stateDir,
      "--fresh",
    ],
    { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
  );
  child = proc;
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  let out = "";
  await new Promise<void>((resolve, reject) => {
    proc.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("Press Ctrl-C")) resolve();
    });
    void exited.then((code) =>
      reject(new Error(`the stack exited (${code}) before it was up:\n${out}`)),
    );
  });
  const address = (label: string) =>
    new RegExp(`^\\s*${label}\\s+(http://127\\.0\\.0\\.1:\\d+\\S*)`, "m").exec(out)?.[1] ?? "";
  return { url: address("handlers"), calendar: address("calendar"), exited };
}

describe("statuspilot start while a feed built to explode is read", () => {
  it("answers meanwhile, and stops on SIGTERM within 2 s", async () => {
    // Arrange: the demo calendar becomes an explosive feed, and its hook is pushed.
    const stack = await startStackProcess();
    expect(stack.url).not.toBe("");
    const around = systemClock.now();
    const put = await fetch(stack.calendar, {
      method: "PUT",
      body: hostileFeed({ around, secondly: 100, minutely: 300, counted: 20, exdates: 300 }),
    });
    expect(put.status).toBe(204);
    await pushHook(stack, "U001", "Europe/Berlin", around);
    const queues = async () =>
      ((await (await fetch(`${stack.url}/_local/queues`)).json()) as { sync: { inFlight: number } })
        .sync;
    for (let i = 0; i < 100 && (await queues()).inFlight === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await queues()).inFlight).toBeGreaterThan(0);
    const asked = systemClock.now();
    const health = await fetch(`${stack.url}/health`);
    const answeredIn = systemClock.now() - asked;
    // Act
    const signalled = systemClock.now();
    child?.kill("SIGTERM");
    const code = await Promise.race([
      stack.exited,
      new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 5_000)),
    ]);
    const stoppedIn = systemClock.now() - signalled;
    // Assert
    console.log(
      `stack answered /health in ${answeredIn} ms mid-sync, stopped ${stoppedIn} ms after SIGTERM`,
    );
    expect(health.status).toBe(200);
    expect(answeredIn).toBeLessThan(1_000);
    expect(code).toBe(0);
    expect(stoppedIn).toBeLessThan(2_000);
  }, 60_000);
});
