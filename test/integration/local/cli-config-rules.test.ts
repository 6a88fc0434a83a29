import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { CliIo } from "#lib/cli/io";
import { run as start } from "#lib/cli/start";

// `statuspilot start --config FILE` with a rule that breaks a limit refuses to start, naming
// the user and the field, before anything runs.

describe("statuspilot start --config with a bad rule", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "statuspilot-rules-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses to start and says whose rule and which field", async () => {
    // Prepare
    const file = path.join(dir, "config.json");
    const user = {
      team: "T0DEMO",
      user: "U007",
      token: "xoxp-secret-007",
      tz: "Europe/Berlin",
      calendars: ["http://127.0.0.1:9/a.ics"],
      rules: {
        custom: [{ name: "Lunch", text: "At lunch", emoji: ":fork_and_knife:", priority: 120 }],
      },
    };
    writeFileSync(file, JSON.stringify({ users: [user] }));
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t) };
    // Act
    const code = await start(
      [
        "--workspace",
        fileURLToPath(new URL("../../../emulator/demo-workspace.json", import.meta.url)),
        "--config",
        file,
        "--port",
        "0",
        "--emulator-port",
        "0",
        "--state-dir",
        dir,
      ],
      io,
      new AbortController().signal,
    );
    // Assess
    expect(code).not.toBe(0);
    expect(err.join("\n")).toContain(
      "config /users/0/rules/custom/0/priority (user T0DEMO/U007): priority must be a whole number from 1 to 99",
    );
    expect(err.join("\n")).not.toContain("xoxp-secret-007");
    expect(out.join("\n")).not.toContain("stack is up");
  });
});
