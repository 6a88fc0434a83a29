import { describe, expect, it } from "vitest";
import { TOOLING_SPECS } from "#bench/cli-specs";
import { CLI_SPECS, type CommandSpec, helpText } from "#lib/cli/command-specs";
import { readRepoFile } from "./shell-commands";

// docs/cli.md gives each command a section whose usage line, first paragraph and notes are what
// its `--help` prints (lib/cli/command-specs.ts, bench/cli-specs.ts), and no other section.

const specs: Record<string, CommandSpec> = { ...CLI_SPECS, ...TOOLING_SPECS };

/** A command's section: its usage block, then its paragraphs until a code block or heading. */
interface Section {
  usage: string | undefined;
  paragraphs: string[];
}

function commandSections(markdown: string): Map<string, Section> {
  const sections = new Map<string, Section>();
  for (const part of markdown.split(/^### /m).slice(1)) {
    const name = /^`statuspilot ([^`]+)`/.exec(part)?.[1];
    if (name === undefined) continue;
    const usage = /```text\n(usage: [^\n]*)\n```/.exec(part)?.[1];
    const after = part.slice(part.indexOf("```", part.indexOf("```text") + 3) + 3);
    const paragraphs: string[] = [];
    for (const block of after.split(/\n\n+/).map((b) => b.trim())) {
      if (block === "") continue;
      if (block.startsWith("```") || block.startsWith("#")) break;
      paragraphs.push(block);
    }
    sections.set(name, { usage, paragraphs });
  }
  return sections;
}

describe("docs/cli.md", () => {
  const sections = commandSections(readRepoFile("docs/cli.md"));

  it("has a section for every command, and none for a command that is not", () => {
    expect([...sections.keys()].sort()).toEqual(Object.keys(specs).sort());
  });

  it.each(Object.entries(specs))("statuspilot %s: says what its --help says", (name, spec) => {
    const [usage, , summary, notes] = helpText(name, spec).split("\n");
    const section = sections.get(name);
    expect(section?.usage).toBe(usage);
    expect(section?.paragraphs[0]).toBe(summary);
    if (notes !== undefined) expect(section?.paragraphs[1]).toBe(notes);
  });

  it("reads a section as --help prints it", () => {
    const doc =
      "### `statuspilot x`\n\n```text\nusage: statuspilot x A\n```\n\nDoes x.\n\nNotes.\n\n```sh\nnpx statuspilot x a\n```\n\nMore.\n";
    expect(commandSections(doc).get("x")).toEqual({
      usage: "usage: statuspilot x A",
      paragraphs: ["Does x.", "Notes."],
    });
  });
});
