import type { CommandSpec } from "#lib/cli/command-specs";

/** The benchmarks' parts, as `--only` names them. */
export const BENCH_PARTS = [
  "calendar",
  "herd",
  "cost",
  "bundles",
  "convergence",
  "standing",
] as const;

/**
 * The commands of the tooling above the CLI (bench/tooling.ts hands them to it): their help,
 * and the options each parses with.
 */
export const TOOLING_SPECS = {
  bench: {
    usage: `[--quick|--full] [--only ${BENCH_PARTS.join(",")}] [--seeds N] [--json]`,
    summary: "Runs every benchmark beside its baseline and prints the tables (bench/README.md).",
    options: {
      quick: { type: "boolean" },
      full: { type: "boolean" },
      only: { type: "string" },
      seeds: { type: "string" },
      json: { type: "boolean" },
    },
  },
  soak: {
    usage: "[--quick] [--renewals] [--users N] [--seed N] [--progress]",
    summary:
      "Runs a fault-injected simulated day, then a month of push-channel renewals (bench/SOAK.md).",
    options: {
      quick: { type: "boolean" },
      renewals: { type: "boolean" },
      users: { type: "string" },
      seed: { type: "string" },
      progress: { type: "boolean" },
    },
  },
} as const satisfies Record<string, CommandSpec>;
