import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ManualClock } from "#lib/core/clock";
import { type LocalStack, startStack } from "#lib/local/stack";
import { demoStackOptions } from "../support/demo-stack";
import { keptStateAndFeed } from "./kept-state";

const _repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const T0 = Date.parse("2025-03-10T10:59:00.000Z");
const S = 1000;
const ooo = { start: T0 + 3_600 * S, end: T0 + 7_200 * S };

describe("a local stack kept in a state directory", () => {
  const clock = new ManualClock(T0);
  const kept = keptStateAndFeed(clock, "/U001.ics");

  const start = (fresh: boolean): Promise<LocalStack> =>
    startStack(
      demoStackOptions(kept.feedUrl(), clock, {
        stateDir: kept.stateDir,
        fresh,
      }),
    );

  const oooEntries = async (stack: LocalStack) => {
    const res = await fetch(`${stack.url}/admin/users/T0DEMO/U001/ooo`, {
      headers: { "x-api-key": stack.adminApiKey },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { entries: unknown[] }).entries;
  };
  /** A user as the admin API shows it (its record, not its changing schedule). */
  const userView = async (stack: LocalStack, user: string) => {
    const res = await fetch(`${stack.url}/admin/users/T0DEMO/${user}`, {
      headers: { "x-api-key": stack.adminApiKey },
    });
    return { status: res.status, user: ((await res.json()) as { user?: unknown }).user };
  };

  it("finds its users, sources, out-of-office entries and secrets again after a restart", async () => {
    // Prepare: a first run with an out-of-office entry.
    const first = await start(true);
    const before = {
      adminApiKey: first.adminApiKey,
      hook: first.hooks.get("U001/cal1"),
    };
    // A user registered over the admin API, not in the stack's configuration.
    const put = await fetch(`${first.url}/admin/users/T0DEMO/U002`, {
      method: "PUT",
      headers: { "content-type": "application/json", "x-api-key": first.adminApiKey },
      body: JSON.stringify({
        tz: "Europe/Lisbon",
        token: "xoxp-demo-U002",
        sources: [{ id: "work", url: kept.feedUrl(), kind: "ics" }],
      }),
    });
    expect(put.status).toBeLessThan(300);
    const u002 = await userView(first, "U002");
    const created = await fetch(`${first.url}/admin/users/T0DEMO/U001/ooo`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": first.adminApiKey },
      body: JSON.stringify(ooo),
    });
    expect(created.status).toBe(201);
    await first.close();
    // Act
    const second = await start(false);
    try {
      // Assess
      expect(u002.status).toBe(200);
      expect(u002.user).toMatchObject({ sources: [expect.objectContaining({ id: "work" })] });
      expect(second.adminApiKey).toBe(before.adminApiKey);
      expect(second.hooks.get("U001/cal1")).toEqual(before.hook);
      expect(await oooEntries(second)).toMatchObject([ooo]);
      expect(await userView(second, "U002")).toEqual(u002);
    } finally {
      await second.close();
    }
  });

  it("starts empty, with new secrets, when started fresh", async () => {
    // Prepare
    const kept = await start(false);
    const keptKey = kept.adminApiKey;
    const keptHook = kept.hooks.get("U001/cal1");
    expect(await oooEntries(kept)).toHaveLength(1);
    await kept.close();
    // Act
    const fresh = await start(true);
    try {
      // Assess
      expect(fresh.adminApiKey).not.toBe(keptKey);
      expect(fresh.hooks.get("U001/cal1")?.channelId).not.toBe(keptHook?.channelId);
      expect(await oooEntries(fresh)).toEqual([]);
      expect((await userView(fresh, "U002")).status).toBe(404);
    } finally {
      await fresh.close();
    }
  });
});
