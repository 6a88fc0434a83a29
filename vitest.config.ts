import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { LongRunsFirst } from "./test/support/long-runs-first";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // A worker runs one file after another in the same process: a fresh process and module graph
    // for each file (the AWS SDK, Powertools, ical.js loaded anew 220 times) cost more than the
    // tests. Files leave nothing behind: stubbed variables and globals are restored after each
    // test, mocks after each file.
    isolate: false,
    unstubEnvs: true,
    unstubGlobals: true,
    // A worker per core (vitest's default leaves one out, which is one worker on 2 cores): much
    // of a file's time is spent waiting on loopback HTTP, dynalite and child processes.
    maxWorkers: Math.max(2, availableParallelism()),
    sequence: { sequencer: LongRunsFirst },
    setupFiles: ["test/support/fast-check-seed.ts"],
    globalSetup: ["test/support/run-dir.ts"],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
  },
});
