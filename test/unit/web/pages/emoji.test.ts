import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { STANDARD_EMOJI_NAMES } from "#lib/schema/standard-emoji.generated";
import { emojiOf, statusLine } from "#lib/web/pages/format";

// Emoji as the pages show them: a standard emoji's characters, a workspace's own as its code.

describe("emojiOf", () => {
  it("shows standard emoji as their characters, written out by hand", () => {
    expect(emojiOf(":palm_tree:")).toBe("\u{1F334}");
    expect(emojiOf(":+1:")).toBe("\u{1F44D}");
    expect(emojiOf(":spiral_calendar_pad:")).toBe("\u{1F5D3}\uFE0F");
    expect(emojiOf(":crescent_moon:")).toBe("\u{1F319}");
    expect(statusLine({ emoji: ":headphones:", text: "Focus time" })).toBe("\u{1F3A7} Focus time");
  });

  it("leaves a workspace's own emoji, and what is not a code, as it is", () => {
    expect(emojiOf(":party_parrot:")).toBe(":party_parrot:");
    expect(emojiOf("palm_tree")).toBe("palm_tree");
    expect(emojiOf("")).toBe("");
    expect(statusLine({ emoji: "", text: "Away" })).toBe("Away");
  });

  it("has characters for every standard name, as emoji-datasource's unified code points give them", () => {
    // The data set itself, read apart from the generated module.
    const require = createRequire(import.meta.url);
    const entries = JSON.parse(
      readFileSync(require.resolve("emoji-datasource/emoji.json"), "utf8"),
    ) as { short_names: string[]; unified: string }[];
    const first = new Map<string, string>();
    for (const e of entries)
      for (const n of e.short_names) if (!first.has(n)) first.set(n, e.unified);
    for (const name of STANDARD_EMOJI_NAMES) {
      const unified = first.get(name) ?? "";
      const chars = String.fromCodePoint(...unified.split("-").map((h) => Number.parseInt(h, 16)));
      expect({ name, shown: emojiOf(`:${name}:`) }).toEqual({ name, shown: chars });
    }
  });
});
