import { describe, expect, it } from "vitest";
import { createUseCases } from "#lib/app/compose/use-cases";
import { contextOf } from "#lib/app/context";
import { completeInstall } from "#lib/app/people/install";
import { selfView } from "#lib/app/people/self-service";
import { emulatorDeps, useEmulatorStack } from "./emulator-harness";
import { block, MIN, T0 } from "./harness";

/**
 * Completing an install through the front door. Reconnecting (a new token from /install) must
 * resume a user stopped for a re-authorisation, or paused, at once, from the timeline already
 * stored; the session epoch is the instant of creation and stays while the user exists.
 */

const stack = useEmulatorStack();
const KEY = { team: "T0CONF", user: "U0MEMBER" };
const WORK = { id: "work", url: "https://cal.example/work.ics", kind: "ics" } as const;

function setup() {
  const deps = emulatorDeps(stack);
  const pilot = createUseCases(deps);
  const ctx = contextOf(deps, (key) => pilot.reconcileUser(key));
  return { pilot, ctx };
}

describe("completing an install", () => {
  it("creates a user with the instant of creation as session epoch, and keeps it after", async () => {
    // Prepare
    stack.clock.set(T0);
    const { ctx, pilot } = setup();
    const key = { team: "T0CONF", user: "U0OTHER" };
    // Act
    const first = await completeInstall(ctx, { key, token: "xoxp-other-1", tz: "Europe/Paris" });
    stack.clock.set(T0 + 5 * MIN);
    const again = await completeInstall(ctx, { key, token: "xoxp-other-2", tz: "Not/AZone" });
    // Assess
    expect(first).toMatchObject({ created: true, resumed: false, sessionEpoch: T0 });
    expect(again).toMatchObject({ created: false, sessionEpoch: T0 });
    expect((await pilot.getUser(key))?.tz).toBe("UTC");
  });

  it("resumes a paused user at once: the stored timeline shows without a sync or a tick", async () => {
    // Prepare: a paused user whose meeting timeline is stored.
    stack.clock.set(T0);
    const { ctx, pilot } = setup();
    await pilot.upsertUser({
      key: KEY,
      tz: "Europe/Berlin",
      token: "xoxp-revoked-0001",
      sources: [WORK],
      mode: "paused",
    });
    await pilot.applyTimeline(KEY, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    stack.clock.set(T0 + 5 * MIN);
    // Act
    const outcome = await completeInstall(ctx, {
      key: KEY,
      token: "xoxp-member-0001",
      tz: "Europe/Berlin",
    });
    // Assess
    expect(outcome).toMatchObject({ created: false, resumed: true, sourceIds: ["work"] });
    expect((await pilot.getUser(KEY))?.mode).toBe("auto");
    const profile = stack.emulator.state().profiles.U0MEMBER;
    expect([profile?.status_text, profile?.status_expiration]).toEqual([
      "In a meeting",
      (T0 + 30 * MIN) / 1000,
    ]);
  });

  it("keeps the scopes granted, and tells the settings page whether Do Not Disturb is allowed", async () => {
    // Prepare
    stack.clock.set(T0);
    const { ctx } = setup();
    const key = { team: "T0CONF", user: "U0SCOPES" };
    const profile = ["users.profile:read", "users.profile:write", "users:read"];
    // Act: installed before DND was asked for, then reconnected with it, then without it.
    await completeInstall(ctx, { key, token: "xoxp-s-1", tz: "UTC" });
    const before = await selfView(ctx, key);
    await completeInstall(ctx, {
      key,
      token: "xoxp-s-2",
      tz: "UTC",
      scopes: [...profile, "dnd:read", "dnd:write"],
    });
    const reconnected = await selfView(ctx, key);
    await completeInstall(ctx, { key, token: "xoxp-s-3", tz: "UTC", scopes: profile });
    const declined = await selfView(ctx, key);
    // Assess
    expect(before?.dndAllowed).toBe(false);
    expect(reconnected?.dndAllowed).toBe(true);
    expect(declined?.dndAllowed).toBe(false);
    expect((await ctx.store.getUser(key))?.grantedScopes).toEqual(profile);
  });
});
