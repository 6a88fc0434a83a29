import { describe, expect, it } from "vitest";
import { run } from "#lib/cli/emulator";
import type { CliIo } from "#lib/cli/io";
import { fixture, repoRoot } from "../service/harness";

function bufferIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t) };
  return { io, out, err };
}

async function until<T>(probe: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("timed out waiting");
}

describe("statuspilot emulator (CLI)", () => {
  it("serves the demo workspace until stopped, logging calls without whole tokens", async () => {
    // Prepare
    const { io, out } = bufferIo();
    const stop = new AbortController();
    const exit = run(
      ["--port", "0", "--workspace", `${repoRoot}/emulator/demo-workspace.json`],
      io,
      stop.signal,
    );
    const apiBase = await until(() => out.join("\n").match(/listening on (\S+)/)?.[1]);
    // Act
    const res = await fetch(`${apiBase}/users.profile.set`, {
      method: "POST",
      headers: { authorization: "Bearer xoxp-demo-U001", "content-type": "application/json" },
      body: JSON.stringify({ profile: { status_text: "Demo", status_emoji: ":calendar:" } }),
    });
    // The body first: stopping the emulator closes its sockets, which would cut the answer off.
    const answer: unknown = await res.json();
    stop.abort();
    // Assess
    expect(answer).toMatchObject({ ok: true, profile: { status_text: "Demo" } });
    expect(await exit).toBe(0);
    const printed = out.join("\n");
    expect(printed).toContain('"method":"users.profile.set"');
    expect(printed).not.toContain("xoxp-demo-U001");
  });

  it("exits 2 with the offending member when the workspace file is invalid", async () => {
    // Prepare
    const { io, err } = bufferIo();
    // Act
    const code = await run(["--port", "0", "--workspace", fixture("invalid-token-user.json")], io);
    // Assess
    expect(code).toBe(2);
    expect(err.join("\n")).toContain("/tokens/0/user");
  });

  it("exits 2 for a fault spec it does not understand, and 64 without --workspace", async () => {
    // Prepare
    const { io, err } = bufferIo();
    // Act
    const bad = await run(
      ["--workspace", fixture("conformance.json"), "--faults", "internal_error=2"],
      io,
    );
    const missing = await run(["--port", "0"], io);
    // Assess
    expect([bad, missing]).toEqual([2, 64]);
    expect(err.join("\n")).toContain("internal_error");
  });
});
