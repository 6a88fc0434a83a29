import { describe, expect, it } from "vitest";
import { configSchema } from "#lib/app/config";
import { readRepoFile } from "./shell-commands";

// docs/local-stack.md's "Environment" table names every variable the handlers' configuration
// reads (lib/app/config.ts), and no other.

/** The variables the first column of a section's table names. */
function tableVariables(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`no section "${heading}"`);
  const rest = markdown.slice(start + heading.length + 2);
  const end = rest.search(/\n#{1,6} /);
  const section = end === -1 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)`/gm)].map((m) => m[1] ?? "");
}

describe("docs/local-stack.md, Environment", () => {
  const documented = tableVariables(readRepoFile("docs/local-stack.md"), "## Environment");

  it("names every variable the configuration reads, once, and no other", () => {
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual(Object.keys(configSchema.shape).sort());
  });

  it("reads only the rows of its own section", () => {
    const markdown =
      "## A\n| `ONE` | x |\n## Environment\n| `TWO` | y |\n| `THREE` | z |\n## B\n| `FOUR` | w |\n";
    expect(tableVariables(markdown, "## Environment")).toEqual(["TWO", "THREE"]);
  });
});
