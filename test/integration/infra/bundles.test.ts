import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BundleReport, buildBundles, LAZY_MODULES } from "../../../infra/build";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
let outDir = "";
let reports = new Map<string, BundleReport>();
const packagesOf = (name: string) => reports.get(name)?.packages ?? [];

describe("function bundles", () => {
  beforeAll(async () => {
    // Prepare
    outDir = await mkdtemp(path.join(tmpdir(), "statuspilot-bundles-"));
    reports = new Map((await buildBundles(repoRoot, outDir)).map((r) => [r.name, r]));
  }, 60_000);
  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it("keeps ical.js and the zone tables in the sync worker only", () => {
    for (const [name] of reports) {
      const calendar = packagesOf(name).filter((p) => p === "ical.js" || p === "windows-iana");
      expect(calendar, name).toEqual(name === "syncWorker" ? ["ical.js", "windows-iana"] : []);
    }
  });

  it("leaves KMS, SSM and the service client (with yaml) out of the tick and the poll", () => {
    for (const name of ["tick", "poll"]) {
      expect(packagesOf(name), name).not.toContain("@aws-sdk/client-kms");
      expect(packagesOf(name), name).not.toContain("@aws-sdk/client-ssm");
      expect(packagesOf(name), name).not.toContain("yaml");
    }
    expect(packagesOf("calendarHooks")).not.toContain("yaml");
    expect(packagesOf("transitionWorker")).not.toContain("@aws-sdk/client-ssm");
  });

  it("makes the tick at least a quarter smaller than the sync worker", () => {
    const tick = reports.get("tick")?.bytes ?? 0;
    const sync = reports.get("syncWorker")?.bytes ?? 0;
    expect(tick).toBeGreaterThan(0);
    expect(tick).toBeLessThan(sync * 0.75);
  });

  it("names only functions that exist in its lazy-module table", () => {
    for (const users of Object.values(LAZY_MODULES)) {
      for (const name of users) expect(reports.has(name), name).toBe(true);
    }
  });
});
