import path from "node:path";
import { describe, expect, it } from "vitest";
import type { CliIo } from "#lib/cli/io";
import { run } from "#lib/cli/manifest-validate";
import { fixturesDir } from "./corpus-root";

function capturingIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (text) => out.push(text), err: (text) => err.push(text) };
  return { io, out, err };
}

const fixture = (file: string) => path.join(fixturesDir, "manifests", file);

describe("statuspilot manifest validate", () => {
  it.each(["full-v1.json", "full-v2.yaml"])("prints valid and exits 0 for %s", async (file) => {
    // Prepare
    const { io, out, err } = capturingIo();
    // Act
    const code = await run([fixture(file)], io);
    // Assess
    expect(code).toBe(0);
    expect(out).toEqual(["valid"]);
    expect(err).toEqual([]);
  });

  it("prints the problems as a JSON array on stdout and exits 1", async () => {
    // Prepare
    const { io, out, err } = capturingIo();
    // Act
    const code = await run([fixture("many-problems.json")], io);
    // Assess
    expect(code).toBe(1);
    expect(err).toEqual([]);
    const problems: unknown = JSON.parse(out.join("\n"));
    expect(problems).toContainEqual({
      message: "unknown member surprise",
      pointer: "/settings/surprise",
    });
    expect(Array.isArray(problems) && problems.length).toBe(6);
  });

  it("exits 2 with the YAML parser's error on one stderr line for broken YAML", async () => {
    // Prepare
    const { io, out, err } = capturingIo();
    // Act
    const code = await run([fixture("unparseable-yaml.txt")], io);
    // Assess
    expect(code).toBe(2);
    expect(out).toEqual([]);
    expect(err).toHaveLength(1);
    expect(err[0]).not.toContain("\n");
    expect(err[0]).toContain("neither JSON nor YAML");
  });

  it.each([
    ["unparseable.txt", "line 2, column 1"],
    ["broken-json.txt", "line 4, column 5"],
  ])(
    "reports the JSON error with line and column for %s, which starts with {",
    async (file, at) => {
      // Prepare
      const { io, out, err } = capturingIo();
      // Act
      const code = await run([fixture(file)], io);
      // Assess
      expect(code).toBe(2);
      expect(out).toEqual([]);
      expect(err).toHaveLength(1);
      expect(err[0]).toContain("is not valid JSON");
      expect(err[0]).toContain(at);
      expect(err[0]).not.toContain("YAML");
    },
  );

  it("still reads flow-style YAML that starts with {", async () => {
    // Prepare
    const { io, out } = capturingIo();
    // Act
    const code = await run([fixture("flow-style.yaml")], io);
    // Assess
    expect(out).toEqual(["valid"]);
    expect(code).toBe(0);
  });

  it("exits 2 with one stderr line for a file that cannot be read", async () => {
    // Prepare
    const { io, out, err } = capturingIo();
    // Act
    const code = await run([fixture("does-not-exist.json")], io);
    // Assess
    expect(code).toBe(2);
    expect(out).toEqual([]);
    expect(err).toHaveLength(1);
    expect(err[0]).toContain("cannot read");
  });

  it("prints usage and exits 64 without a file", async () => {
    // Prepare
    const { io, err } = capturingIo();
    // Act
    const code = await run([], io);
    // Assess
    expect(code).toBe(64);
    expect(err[0]).toContain("usage");
  });
});
