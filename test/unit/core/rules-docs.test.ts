import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { explainDay } from "#lib/core/explain";
import { DEFAULT_RULES, userRulesSchemaKnowing } from "#lib/core/rules";
import type { Occurrence } from "#lib/core/types";

// The rules as docs/rules.md and the README write them: every example parses, the defaults are
// the schema's, and the whole setup does what the text says it does.

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const jsonBlocks = (file: string): unknown[] =>
  [...readFileSync(path.join(repoRoot, file), "utf8").matchAll(/```json\n([\s\S]*?)```/g)].map(
    (m) => JSON.parse(m[1] ?? ""),
  );
const schema = userRulesSchemaKnowing(["cal1", "cal2", "cal3"]);
const [example, defaults] = jsonBlocks("docs/rules.md");

describe("docs/rules.md", () => {
  it("lists the defaults the schema gives", () => {
    expect(defaults).toEqual(DEFAULT_RULES);
  });

  it("has a whole setup that parses, as does the README's", () => {
    expect(schema.safeParse(example).success).toBe(true);
    const readme = jsonBlocks("README.md").filter(
      (b) => typeof b === "object" && b !== null && "custom" in b,
    );
    expect(readme).toHaveLength(1);
    expect(schema.safeParse(readme[0]).success).toBe(true);
  });

  it("does with that setup what its text says", () => {
    const H = 3_600_000;
    const day = Date.UTC(2026, 2, 10); // a Tuesday, in UTC
    const occ = (summary: string, at: number, over: Partial<Occurrence> = {}): Occurrence => ({
      uid: summary,
      start: day + at * H,
      end: day + (at + 1) * H,
      allDay: false,
      summary,
      attendeeCount: 2,
      guests: 1,
      sourceId: "cal1",
      ...over,
    });
    const lines = explainDay(
      [
        occ("Lunch with Bo", 12),
        occ("Interview: Ada (focus)", 13, { sourceId: "cal2" }),
        occ("Catch-up", 14, { online: true }),
        occ("Dentist", 15, { guests: 0 }),
        occ("Book club", 16, { sourceId: "cal3" }),
      ],
      schema.parse(example),
      "UTC",
      day,
      day + 24 * H,
    );
    expect(lines.map((l) => [l.status?.text, l.status?.dnd, l.rule])).toEqual([
      ["At lunch", false, "Lunch: keyword lunch"],
      ["Interviewing", true, "Interviewing: keyword interview, calendar cal2"],
      ["On a call", false, "On a call: video call"],
      [undefined, undefined, "skipped: no guests"],
      [undefined, undefined, "skipped: calendar cal3"],
    ]);
  });
});
