import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStateDir } from "#devstack/state";

describe("the state directory's web key", () => {
  let dir = "";
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("is generated once (32+ characters) and kept across a restart, so sessions survive it", () => {
    // Prepare
    dir = mkdtempSync(path.join(tmpdir(), "statuspilot-state-"));
    // Act
    const first = openStateDir(dir).state.webKey;
    const again = openStateDir(dir).state.webKey;
    // Assess
    expect(first?.length).toBeGreaterThanOrEqual(32);
    expect(again).toBe(first);
  });

  it("is added to a state file written before the front door, keeping its other secrets", () => {
    // Prepare
    dir = mkdtempSync(path.join(tmpdir(), "statuspilot-state-"));
    const old = { version: 1, tokenKey: "old-token-key", adminApiKey: "old-admin", channels: {} };
    writeFileSync(path.join(dir, "state.json"), JSON.stringify(old));
    // Act
    const { state } = openStateDir(dir);
    // Assess
    expect(state).toMatchObject(old);
    expect(state.webKey?.length).toBeGreaterThanOrEqual(32);
    const saved = JSON.parse(readFileSync(path.join(dir, "state.json"), "utf8"));
    expect(saved.webKey).toBe(state.webKey);
  });

  it("is new after --fresh", () => {
    // Prepare
    dir = mkdtempSync(path.join(tmpdir(), "statuspilot-state-"));
    const before = openStateDir(dir).state.webKey;
    // Act
    const after = openStateDir(dir, { fresh: true }).state.webKey;
    // Assess
    expect(after).not.toBe(before);
  });
});
