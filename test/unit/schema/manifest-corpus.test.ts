import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseManifestText, validateManifest } from "#lib/schema/manifest";
import { corpusDir, hasCorpus } from "./corpus-root";

if (!hasCorpus) {
  console.warn(`manifest corpus tests skipped: ${corpusDir} is absent`);
}

const manifestsDir = path.join(corpusDir, "manifests");
const read = (folder: string, file: string) =>
  parseManifestText(readFileSync(path.join(manifestsDir, folder, file), "utf8"));

/*
 * The pointer EXPECTED.md names for each invalid manifest. Upstream validates with JSON Schema,
 * which reports an unknown or missing member at the enclosing object; we report it at the member
 * itself (e.g. /settings/bad_param for /settings), so a problem may sit at or below the pointer.
 */
const expectedPointers: Record<string, string> = {
  "01-slackapi-manifest-schema-v1-invalid.json": "/settings",
  "02-slackapi-manifest-schema-v2-invalid.json": "/workflows/time_off_request/input_parameters",
  "06-derived-manifest-schema-v2-agent_view-too_many_suggested_prompts.json":
    "/features/agent_view/suggested_prompts",
  "07-derived-manifest-schema-v2-agent_view-action_missing_description.json":
    "/features/agent_view/actions/0",
  "08-derived-manifest-schema-v2-agent_view-agent_description_too_long.json":
    "/features/agent_view/agent_description",
  "09-derived-manifest-schema-v2-agent_view-additional_property_rejected.json":
    "/features/agent_view",
};

const atOrBelow = (pointer: string, expected: string) =>
  pointer === expected || pointer.startsWith(`${expected}/`);

describe.runIf(hasCorpus)("the platform's own manifest fixtures", () => {
  const valid = hasCorpus ? readdirSync(path.join(manifestsDir, "valid")) : [];
  const invalid = hasCorpus ? readdirSync(path.join(manifestsDir, "invalid")) : [];

  it("finds the corpus files it expects", () => {
    // Assess
    expect(valid.length).toBeGreaterThanOrEqual(4);
    expect(invalid.sort()).toEqual(Object.keys(expectedPointers).sort());
  });

  it.each(valid)("accepts valid/%s", (file) => {
    // Prepare
    const doc = read("valid", file);
    // Act
    const problems = validateManifest(doc);
    // Assess
    expect(problems).toEqual([]);
  });

  it.each(invalid)("rejects invalid/%s at the pointer EXPECTED.md names", (file) => {
    // Prepare
    const doc = read("invalid", file);
    const expected = expectedPointers[file] ?? "(no expectation)";
    // Act
    const problems = validateManifest(doc);
    // Assess: at least one problem, and every problem inside the expected location
    expect(problems.length).toBeGreaterThan(0);
    for (const problem of problems) {
      expect(atOrBelow(problem.pointer, expected), problem.pointer).toBe(true);
    }
  });

  it("reports the extra settings member of the v1 invalid fixture at its own pointer", () => {
    // Act
    const problems = validateManifest(
      read("invalid", "01-slackapi-manifest-schema-v1-invalid.json"),
    );
    // Assess
    expect(problems).toEqual([
      { message: "unknown member bad_param", pointer: "/settings/bad_param" },
    ]);
  });
});
