import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readRepoFile, repoRoot } from "./shell-commands";

// Every relative link of the README and of docs/ leads somewhere: the file exists, and an
// anchor names a heading of the markdown file it points into (as GitHub spells heading ids).

const documents = [
  "README.md",
  ...readdirSync(path.join(repoRoot, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** A link of a document: where it stands and what it points at. */
interface Link {
  file: string;
  line: number;
  target: string;
}

/** The relative links of a markdown text, code blocks and code spans left out. */
function relativeLinks(file: string, markdown: string): Link[] {
  const links: Link[] = [];
  let inFence = false;
  markdown.split("\n").forEach((text, index) => {
    if (/^\s*```/.test(text)) inFence = !inFence;
    if (inFence) return;
    const prose = text.replace(/`[^`]*`/g, "");
    const targets = [
      ...[...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] ?? ""),
      ...[...prose.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? ""),
    ];
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
      links.push({ file, line: index + 1, target });
    }
  });
  return links;
}

/** GitHub's id of a heading: lower case, punctuation dropped, spaces as hyphens. */
function headingId(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The ids of a markdown file's headings, repeats numbered as GitHub numbers them. */
function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const text of markdown.split("\n")) {
    if (/^\s*```/.test(text)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.*)$/.exec(text);
    if (!heading) continue;
    const id = headingId(heading[1] ?? "");
    const n = seen.get(id) ?? 0;
    seen.set(id, n + 1);
    ids.add(n === 0 ? id : `${id}-${n}`);
  }
  return ids;
}

/** Why a link leads nowhere, or undefined when it resolves. */
function linkProblem(link: Link, read = readRepoFile): string | undefined {
  const [pathPart = "", anchor] = link.target.split("#");
  const file = pathPart === "" ? link.file : path.join(path.dirname(link.file), pathPart);
  if (file.startsWith("..")) return `${file} is outside the repository`;
  const absolute = path.join(repoRoot, file);
  if (!existsSync(absolute)) return `no file ${file}`;
  if (anchor === undefined) return undefined;
  if (statSync(absolute).isDirectory() || !file.endsWith(".md")) {
    return `#${anchor}: ${file} is not a markdown file`;
  }
  return headingIds(read(file)).has(anchor) ? undefined : `${file} has no heading #${anchor}`;
}

const links = documents.flatMap((file) => relativeLinks(file, readRepoFile(file)));

describe("the relative links of README.md and docs/", () => {
  it("are there to check", () => {
    expect(links.length).toBeGreaterThan(20);
  });

  it.each(links.map((l) => [`${l.file}:${l.line} ${l.target}`, l] as const))(
    "%s resolves",
    (_, link) => {
      expect(linkProblem(link)).toBeUndefined();
    },
  );
});

describe("the check of a link", () => {
  const problem = (target: string, markdown = "# The control routes\n## Alarms\n## Alarms") =>
    linkProblem({ file: "docs/rules.md", line: 1, target }, () => markdown);

  it("finds links in prose and images, not in code", () => {
    const found = relativeLinks(
      "x.md",
      '[a](docs/a.md) and `[b](b.md)`\n<img src="c.png">\n```md\n[d](d.md)\n```\n[e](https://e.example)',
    ).map((l) => l.target);
    expect(found).toEqual(["docs/a.md", "c.png"]);
  });

  it("refuses a file that is not there, and a path out of the repository", () => {
    expect(problem("nothing.md")).toMatch(/no file docs\/nothing\.md/);
    expect(problem("../../outside.md")).toMatch(/outside/);
  });

  it("refuses an anchor that names no heading", () => {
    expect(problem("rules.md#the-control-route")).toMatch(/no heading/);
    expect(problem("rules.md#the-control-routes")).toBeUndefined();
    expect(problem("rules.md#alarms-1")).toBeUndefined();
    expect(problem("#alarms-2")).toMatch(/no heading/);
  });

  it("spells heading ids as GitHub does", () => {
    expect(headingId("The local stack: `npm start`")).toBe("the-local-stack-npm-start");
    expect(headingId("Google Calendar, connected")).toBe("google-calendar-connected");
  });
});
