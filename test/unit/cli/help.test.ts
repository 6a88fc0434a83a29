import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { toolingCommands } from "#bench/tooling";
import type { CliIo } from "#lib/cli/io";
import { cliCommands, main } from "#lib/cli/main";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** Every command as bin/statuspilot.mjs runs them: the CLI's own and the tooling's. */
const everyCommand = { ...cliCommands, ...toolingCommands };

const run = async (...argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t) };
  const code = await main(argv, io, toolingCommands);
  return { code, out: out.join("\n"), err: err.join("\n") };
};

/** Whether `usage` names `--option` as a flag of its own (not inside a longer one). */
const names = (usage: string, option: string): boolean =>
  new RegExp(`(^|[\\s\\[|])--${option}(?=$|[\\s\\]|])`).test(usage);

describe("statuspilot --help", () => {
  it.each(Object.keys(everyCommand))(
    "answers `%s --help` and `-h` with its own usage",
    async (name) => {
      for (const flag of ["--help", "-h"]) {
        // Act
        const { code, out, err } = await run(...name.split(" "), flag);
        // Assess
        expect({ code, err }).toEqual({ code: 0, err: "" });
        expect(out.split("\n")[0]).toMatch(new RegExp(`^usage: statuspilot ${name}( |$)`));
      }
    },
  );

  it("answers --help after other arguments, but not after `--`", async () => {
    expect((await run("status", "U001", "--port", "3000", "--help")).code).toBe(0);
    const afterDashes = await run("status", "--port", "x", "--", "--help");
    expect(afterDashes.code).toBe(64);
  });

  it.each(Object.entries(everyCommand))(
    "names every option `%s` parses in its usage",
    (_name, c) => {
      // The options are the ones its parser is given (lib/cli/command-specs.ts, bench/cli-specs.ts).
      const missing = Object.keys(c.options).filter((option) => !names(c.usage, option));
      expect(missing).toEqual([]);
    },
  );

  it("lists every command with every option it parses in the top-level usage", async () => {
    // Act
    const { code, out } = await run("--help");
    // Assess
    expect(code).toBe(0);
    for (const [name, c] of Object.entries(everyCommand)) {
      const line = out.split("\n").find((l) => l.startsWith(`  ${name} `) || l === `  ${name}`);
      expect(line, name).toBeDefined();
      const missing = Object.keys(c.options).filter((option) => !names(line ?? "", option));
      expect(missing, name).toEqual([]);
    }
  });

  it("answers -h, help and nothing at all with the top-level usage, on stdout", async () => {
    const top = (await run("--help")).out;
    for (const argv of [["-h"], ["help"], []]) {
      expect(await run(...argv)).toEqual({ code: 0, out: top, err: "" });
    }
    expect(top).toMatch(/^usage: statuspilot <command>/);
  });

  it("answers a group's --help with its commands, and the group alone with them as an error", async () => {
    for (const group of ["calendar", "manifest"]) {
      const help = await run(group, "--help");
      const bare = await run(group);
      const members = Object.keys(everyCommand).filter((n) => n.startsWith(`${group} `));
      expect(members.length).toBeGreaterThan(1);
      expect(help.code).toBe(0);
      expect(bare.code).toBe(64);
      for (const member of members) {
        expect(help.out).toContain(`  ${member} `);
        expect(bare.err).toContain(`  ${member} `);
      }
    }
  });

  it("refuses an unknown command and an unknown option with exit 64 and the usage", async () => {
    const unknown = await run("frobnicate");
    expect(unknown.code).toBe(64);
    expect(unknown.err).toMatch(/^usage: statuspilot <command>/);
    const option = await run("status", "--frob");
    expect(option.code).toBe(64);
    expect(option.err).toContain("usage: statuspilot status USER");
  });

  it("has every command parse with its spec's options, so its usage cannot drift from them", () => {
    // Every parseArgs call in the command modules is given a spec's options, nothing else.
    const files = ["lib/cli", "bench"].flatMap((dir) =>
      readdirSync(path.join(repoRoot, dir))
        .filter((f) => f.endsWith(".ts"))
        .map((f) => `${dir}/${f}`),
    );
    const parsing = files.filter((f) =>
      readFileSync(path.join(repoRoot, f), "utf8").includes("parseArgs("),
    );
    expect(parsing).toEqual(expect.arrayContaining(["lib/cli/status.ts", "bench/run.ts"]));
    for (const file of parsing) {
      const text = readFileSync(path.join(repoRoot, file), "utf8");
      const calls = text.split("parseArgs(").slice(1);
      for (const call of calls) {
        expect(call.slice(0, 400), file).toMatch(/options: (CLI_SPECS|TOOLING_SPECS)[.[]/);
      }
    }
  });
});
