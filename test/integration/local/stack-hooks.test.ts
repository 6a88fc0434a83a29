import { createHmac } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";
import { renderIcs } from "#lib/local/demo-feed";
import { type IcsServer, startIcsServer } from "#lib/local/ics-server";
import { type LocalStack, startStack } from "#lib/local/stack";
import { demoStackOptions } from "../../support/demo-stack";

const _repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const T0 = Date.parse("2025-03-10T10:59:00.400Z");

type AppLine = { level: string; message: string; data?: Record<string, unknown> };

/** The handlers' records as `statuspilot start` would receive them. */
const capturingLog = () => {
  const lines: AppLine[] = [];
  const put = (level: string) => (message: string, data?: Record<string, unknown>) => {
    lines.push({ level, message, ...(data ? { data } : {}) });
  };
  const log: Log = {
    debug: put("debug"),
    info: put("info"),
    warn: put("warn"),
    error: put("error"),
  };
  return { log, lines };
};

describe("the local stack's generic hooks", () => {
  const appLog = capturingLog();
  let stack: LocalStack;
  let ics: IcsServer;

  beforeAll(async () => {
    const clock = new ManualClock(T0);
    ics = await startIcsServer({ clock, feeds: { "/U001.ics": renderIcs([], T0) } });
    stack = await startStack(
      demoStackOptions(ics.feedUrl("/U001.ics"), clock, {
        appLog: appLog.log,
        logLevel: "INFO",
      }),
    );
  });
  afterAll(async () => {
    await stack?.close();
    await ics?.close();
  });

  const hook = () => {
    const h = stack.hooks.get("U001/cal1");
    if (!h) throw new Error("the stack registered no hook for U001/cal1");
    return h;
  };

  it("accepts a push through the generic hook signed with the hook's secret", async () => {
    // Prepare
    const { channelId, secret } = hook();
    const body = JSON.stringify({ changed: "cal1" });
    const ts = Math.floor(stack.clock.now() / 1000);
    const mac = createHmac("sha256", secret).update(`v0:${ts}:${body}`).digest("hex");
    // Act
    const res = await fetch(`${stack.url}/hooks/generic/${encodeURIComponent(channelId)}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-statuspilot-timestamp": String(ts),
        "x-statuspilot-signature": `v0=${mac}`,
      },
      body,
    });
    // Assess
    expect(res.status).toBe(200);
  });

  it("refuses a Google push naming a generic hook's id, even with the hook's secret as token", async () => {
    // Prepare
    const { channelId, secret } = hook();
    // Act
    const res = await fetch(`${stack.url}/hooks/google`, {
      method: "POST",
      headers: {
        "x-goog-channel-id": channelId,
        "x-goog-channel-token": secret,
        "x-goog-resource-state": "exists",
      },
    });
    // Assess: the token is right for the id, but the binding is the generic hook's.
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: "bad_channel_token" });
  });

  it("writes the handlers' records to the stack's app log, never as Powertools JSON", async () => {
    // Prepare
    const before = appLog.lines.length;
    // Act
    const res = await fetch(`${stack.url}/hooks/google`, {
      method: "POST",
      headers: { "x-goog-channel-id": "nobody", "x-goog-resource-state": "exists" },
    });
    await stack.settle();
    // Assess
    expect(res.status).toBe(401);
    expect(appLog.lines.slice(before)).toContainEqual({
      level: "info",
      message: "request refused",
      data: expect.objectContaining({ status: 401, error: "bad_channel_token" }),
    });
  });
});
