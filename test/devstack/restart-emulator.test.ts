import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ManualClock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";
import { type LocalStack, startStack } from "#lib/local/stack";
import { demoStackOptions } from "../support/demo-stack";
import { keptStateAndFeed } from "./kept-state";

const _repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const T0 = Date.parse("2025-03-10T10:59:00.000Z");
/** The demo workspace's app, as its file names it. */
const CLIENT_ID = "T0DEMO.A0STATUSPILOT";
const CLIENT_SECRET = "demo-client-secret";
const KEPT_STATUS = { status_text: "Kept across restarts", status_emoji: ":palm_tree:" };

type Json = Record<string, unknown>;

/** A log that keeps its warnings, to read why a saved state was not used. */
function warningLog() {
  const warnings: { message: string; data: Json }[] = [];
  const log: Log = {
    debug() {},
    info() {},
    warn: (message, data = {}) => warnings.push({ message, data }),
    error() {},
  };
  return { log, warnings };
}

describe("the emulator's workspace state in a local stack's state directory", () => {
  const clock = new ManualClock(T0);
  const saved = keptStateAndFeed(clock, "/U001.ics", "statuspilot-emulator-state-");

  const start = (fresh: boolean, log?: Log): Promise<LocalStack> =>
    startStack(
      demoStackOptions(saved.feedUrl(), clock, {
        stateDir: saved.stateDir,
        fresh,
        ...(log ? { log } : {}),
      }),
    );

  const emulatorOf = (stack: LocalStack) => {
    if (!stack.emulator) throw new Error("the stack runs no emulator");
    return stack.emulator;
  };

  const call = async (stack: LocalStack, method: string, args: Json, token?: string) => {
    const res = await fetch(`${emulatorOf(stack).apiBase}/${method}`, {
      method: "POST",
      headers: {
        "content-type": "application/json; charset=utf-8",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(args),
    });
    return (await res.json()) as Json;
  };

  /** U002 installs the app through the emulator's OAuth pages; the exchange gives the token. */
  const installAsU002 = async (stack: LocalStack): Promise<string> => {
    const redirectUri = `${stack.url}/oauth/callback`;
    const qs = new URLSearchParams({
      client_id: CLIENT_ID,
      user_scope: "users.profile:write,users.profile:read",
      redirect_uri: redirectUri,
      as: "U002",
    });
    const consent = await fetch(`${emulatorOf(stack).url}/oauth/v2/authorize?${qs}`, {
      redirect: "manual",
    });
    expect(consent.status).toBe(302);
    const code = new URL(consent.headers.get("location") ?? "").searchParams.get("code") ?? "";
    const exchanged = await call(stack, "oauth.v2.access", {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      code,
      redirect_uri: redirectUri,
    });
    expect(exchanged.ok).toBe(true);
    return (exchanged.authed_user as { access_token: string }).access_token;
  };

  const statusOfU002 = (stack: LocalStack) => {
    const profile = emulatorOf(stack).state().profiles.U002;
    return { status_text: profile?.status_text, status_emoji: profile?.status_emoji };
  };

  it("keeps the tokens it issued through OAuth and the statuses set with them", async () => {
    // Prepare: a first run where U002 installs and sets a status with the token
    const first = await start(true);
    const token = await installAsU002(first);
    const set = await call(first, "users.profile.set", { profile: KEPT_STATUS }, token);
    expect(set.ok).toBe(true);
    await first.close();
    // Act
    const second = await start(false);
    try {
      // Assess: the status is still there, and the token still works
      expect(statusOfU002(second)).toEqual(KEPT_STATUS);
      const again = await call(
        second,
        "users.profile.set",
        { profile: { status_text: "Still mine" } },
        token,
      );
      expect(again).toMatchObject({ ok: true, profile: { status_text: "Still mine" } });
    } finally {
      await second.close();
    }
  });

  it("starts from the workspace file when started fresh", async () => {
    // Prepare: a run that keeps a token and a status
    const kept = await start(false);
    const token = await installAsU002(kept);
    expect((await call(kept, "users.profile.set", { profile: KEPT_STATUS }, token)).ok).toBe(true);
    await kept.close();
    // Act
    const fresh = await start(true);
    try {
      // Assess: the demo workspace gives U002 no status, and knows no such token
      expect(statusOfU002(fresh)).toEqual({ status_text: "", status_emoji: "" });
      expect(await call(fresh, "users.profile.set", { profile: KEPT_STATUS }, token)).toEqual({
        ok: false,
        error: "invalid_auth",
      });
    } finally {
      await fresh.close();
    }
  });

  it.each([
    ["a file that is not JSON", "{ half written", /not JSON/],
    ["a state of another version", JSON.stringify({ version: 0 }), /\/version/],
  ])("starts from the workspace file, saying why, given %s", async (_name, content, reason) => {
    // Prepare: a kept status, then the saved state replaced
    const kept = await start(false);
    const token = await installAsU002(kept);
    expect((await call(kept, "users.profile.set", { profile: KEPT_STATUS }, token)).ok).toBe(true);
    await kept.close();
    writeFileSync(path.join(saved.stateDir, "emulator.json"), content);
    const { log, warnings } = warningLog();
    // Act
    const restarted = await start(false, log);
    try {
      // Assess
      expect(statusOfU002(restarted)).toEqual({ status_text: "", status_emoji: "" });
      expect(warnings).toContainEqual({
        message: expect.stringContaining("emulator state not restored"),
        data: expect.objectContaining({ reason: expect.stringMatching(reason) }),
      });
      // The stack still works with the workspace's own token.
      expect(
        (await call(restarted, "users.profile.set", { profile: KEPT_STATUS }, "xoxp-demo-U002")).ok,
      ).toBe(true);
    } finally {
      await restarted.close();
    }
  });
});
