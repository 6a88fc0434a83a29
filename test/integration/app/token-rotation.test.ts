import { afterEach, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "#emulator/server";
import { createUseCases, type UseCases } from "#lib/app/compose/use-cases";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { oauthTokenRefresher } from "#lib/app/secrets/oauth-token-refresher";
import { ServiceStatusGateway } from "#lib/app/status/service-gateway";
import { ManualClock } from "#lib/core/clock";
import { silentLog } from "#lib/core/ports";
import type { Block } from "#lib/core/types";
import { ServiceClient } from "#lib/service/client";
import { OAuthClient } from "#lib/service/oauth-client";
import { MemoryStore } from "#lib/store/memory-store";
import { oauthAppWorkspace } from "../service/harness";
import { MemoryQueue } from "./harness";

// Token rotation as the platform documents it: with rotation on, an access token lives 12 hours
// and comes with a single-use refresh token; `oauth.v2.access` with grant_type=refresh_token
// renews both. Statuspilot must renew before the token runs out and never lose a transition.

const T0 = Date.UTC(2025, 2, 10, 8, 0, 0);
const MIN = 60_000;
const HOUR = 60 * MIN;
const CLIENT_ID = "1234567890.0987654321";
const CLIENT_SECRET = "main-client-secret-0001";
const CALLBACK = "https://app.example/oauth/callback";
const USER = "U0MEMBER";

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

interface Stack {
  clock: ManualClock;
  emu: RunningEmulator;
  store: MemoryStore;
  oauth: OAuthClient;
  /** A worker: its own use cases over the shared store, as each Lambda has. */
  worker(): UseCases;
  team: string;
}

async function setup(): Promise<Stack> {
  const clock = new ManualClock(T0);
  const workspace = oauthAppWorkspace({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUrls: [CALLBACK],
    userScopes: ["users.profile:write", "users.profile:read", "users:read"],
    rotation: true,
  });
  const emu = await startEmulator({ workspace, clock, port: 0, expirySweepMs: 0 });
  running.push(emu);
  const store = new MemoryStore();
  const tokens = new LocalTokenVault(Buffer.alloc(32, 7));
  const oauth = new OAuthClient({
    baseUrl: emu.apiBase,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    clock,
  });
  const worker = (): UseCases =>
    createUseCases({
      store,
      gateway: new ServiceStatusGateway(
        new ServiceClient({ baseUrl: emu.apiBase, clock, budget: false }),
      ),
      transitionQueue: new MemoryQueue(),
      clock,
      log: silentLog,
      tokens,
      tokenRefresher: oauthTokenRefresher(async () => oauth),
      // Production default: the profile is read before each write, so two concurrent reconciles
      // both use the token before either claims the write.
      options: { verifyBeforeWrite: true },
    });
  const team = emu.state().team.id;
  return { clock, emu, store, oauth, worker, team };
}

/** Installs USER as the consent page's `as=` shortcut does, and stores them with the grant. */
async function install(s: Stack, pilot: UseCases): Promise<number> {
  const authorize = new URL(`${s.emu.url}/oauth/v2/authorize`);
  for (const [k, v] of Object.entries({
    client_id: CLIENT_ID,
    user_scope: "users.profile:write,users.profile:read,users:read",
    redirect_uri: CALLBACK,
    state: "s",
    as: USER,
  }))
    authorize.searchParams.set(k, v);
  const res = await fetch(authorize, { redirect: "manual" });
  const code = new URL(res.headers.get("location") ?? "").searchParams.get("code") ?? "";
  const grant = await s.oauth.exchangeCode({ code, redirectUri: CALLBACK });
  if (grant.refreshToken === undefined || grant.expiresAt === undefined) {
    throw new Error("rotation is on: the grant must carry a refresh token and an expiry");
  }
  await pilot.upsertUser({
    key: { team: s.team, user: USER },
    tz: "UTC",
    token: grant.accessToken,
    refreshToken: grant.refreshToken,
    tokenExpiresAt: grant.expiresAt,
    sources: [{ id: "cal", url: "https://calendar.example/u.ics", kind: "ics" }],
    mode: "auto",
  });
  return grant.expiresAt;
}

const meeting = (start: number, end: number): Block => ({
  start,
  end,
  text: "In a meeting",
  emoji: ":calendar:",
  kind: "meeting",
  expiration: Math.floor(end / 1000),
});

const refreshes = (emu: RunningEmulator): number =>
  emu.calls().filter((c) => c.method === "oauth.v2.access").length - 1; // minus the install
/** What the profile shows at `now`: a status past its expiration shows nothing. */
function shown(emu: RunningEmulator, now: number): string {
  const p = emu.state().profiles[USER];
  if (p === undefined) return "";
  const expired = p.status_expiration > 0 && p.status_expiration * 1000 <= now;
  return expired ? "" : p.status_text;
}

describe("token rotation", () => {
  it("keeps setting statuses across the token's expiry, with exactly one refresh", async () => {
    // Prepare: a meeting before the 12 h expiry and one after it
    const s = await setup();
    const pilot = s.worker();
    const key = { team: s.team, user: USER };
    const expiresAt = await install(s, pilot);
    expect(expiresAt).toBe(T0 + 12 * HOUR);
    await pilot.applyTimeline(
      key,
      [meeting(T0 + 1 * HOUR, T0 + 2 * HOUR), meeting(T0 + 13 * HOUR, T0 + 14 * HOUR)],
      { sourceId: "cal" },
    );
    // Act: the transitions as the tick would run them
    const seen: string[] = [];
    for (const at of [1, 2, 13, 14]) {
      s.clock.advance(T0 + at * HOUR - s.clock.now());
      await pilot.reconcileUser(key);
      seen.push(shown(s.emu, s.clock.now()));
    }
    // Assess
    expect(seen).toEqual(["In a meeting", "", "In a meeting", ""]);
    expect(refreshes(s.emu)).toBe(1);
    expect((await pilot.getUser(key))?.needsReauth).toBeUndefined();
  });

  it("refreshes 10 minutes ahead, before the old token stops working", async () => {
    // Prepare
    const s = await setup();
    const pilot = s.worker();
    const key = { team: s.team, user: USER };
    await install(s, pilot);
    await pilot.applyTimeline(key, [meeting(T0 + 12 * HOUR - 5 * MIN, T0 + 13 * HOUR)], {
      sourceId: "cal",
    });
    // Act
    s.clock.advance(T0 + 12 * HOUR - 5 * MIN - s.clock.now());
    await pilot.reconcileUser(key);
    // Assess
    expect(refreshes(s.emu)).toBe(1);
    expect(shown(s.emu, s.clock.now())).toBe("In a meeting");
  });

  it("refreshes once when two workers reconcile the user at the same moment", async () => {
    // Prepare
    const s = await setup();
    const [a, b] = [s.worker(), s.worker()];
    const key = { team: s.team, user: USER };
    await install(s, a);
    await a.applyTimeline(key, [meeting(T0 + 13 * HOUR, T0 + 14 * HOUR)], { sourceId: "cal" });
    s.clock.advance(T0 + 13 * HOUR - s.clock.now());
    // Act
    const outcomes = await Promise.all([a.reconcileUser(key), b.reconcileUser(key)]);
    // Assess: one refresh, nobody flagged, the status set
    expect(refreshes(s.emu)).toBe(1);
    expect(outcomes.map((o) => o.kind)).not.toContain("needs_reauth");
    expect(shown(s.emu, s.clock.now())).toBe("In a meeting");
    expect((await a.getUser(key))?.needsReauth).toBeUndefined();
    // And the stored pair works for the next change, with no other refresh.
    s.clock.advance(T0 + 14 * HOUR - s.clock.now());
    await b.reconcileUser(key);
    expect(shown(s.emu, s.clock.now())).toBe("");
    expect(refreshes(s.emu)).toBe(1);
  });

  it("flags the user for reconnection when the refresh token was revoked", async () => {
    // Prepare
    const s = await setup();
    const pilot = s.worker();
    const key = { team: s.team, user: USER };
    await install(s, pilot);
    await pilot.applyTimeline(key, [meeting(T0 + 13 * HOUR, T0 + 14 * HOUR)], {
      sourceId: "cal",
    });
    const stored = await s.store.getUser(key);
    const token = await new LocalTokenVault(Buffer.alloc(32, 7)).open(stored?.tokenSealed ?? "", {
      ...key,
      field: "access_token",
    });
    await s.oauth.revoke(token);
    s.clock.advance(T0 + 13 * HOUR - s.clock.now());
    // Act
    const outcome = await pilot.reconcileUser(key);
    // Assess
    expect(outcome).toEqual({ kind: "needs_reauth", code: "invalid_refresh_token" });
    expect((await pilot.getUser(key))?.needsReauth?.code).toBe("invalid_refresh_token");
    expect(shown(s.emu, s.clock.now())).toBe("");
  });
});
