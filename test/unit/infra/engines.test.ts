import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const readJson = (file: string): unknown =>
  JSON.parse(readFileSync(path.join(repoRoot, file), "utf8"));

const manifest = readJson("package.json") as { engines: { node: string } };
const lock = readJson("package-lock.json") as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

/** Each locked package's Node range, where it states one (a few old ones list strings). */
const nodeRanges = Object.entries(lock.packages).flatMap(([where, entry]) => {
  const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
  const name = where === "" ? "this project" : where.replace(/^.*node_modules\//, "");
  return range === undefined ? [] : [{ name, range }];
});

describe("the Node versions the project supports", () => {
  it("are all supported by every locked package, so `npm ci` warns of no engine (issue 28)", () => {
    // Prepare: the oldest Node the project's `engines` allows, and the newest of its major.
    const oldest = semver.minVersion(manifest.engines.node);
    expect(oldest).not.toBeNull();
    const lowest = oldest?.version ?? "";
    const probes = [lowest, `${semver.major(lowest)}.999.0`, process.version];
    // Act
    const refused = nodeRanges.flatMap(({ name, range }) =>
      probes
        .filter((node) => !semver.satisfies(node, range, { includePrerelease: true }))
        .map((node) => `${name} wants node ${range}, not ${node}`),
    );
    // Assess
    expect(nodeRanges.length).toBeGreaterThan(50);
    expect(refused).toEqual([]);
  });
});
