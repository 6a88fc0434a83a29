import { describe, expect, it } from "vitest";
import { dynaliteForFile } from "../../support/dynalite";
import { block, harness, MIN, T0 } from "./harness";

/**
 * The service's `tokens_revoked` and `app_uninstalled` events, on the real store (dynalite):
 * the users concerned make no more service calls at once; after an uninstall their data is
 * deleted once the grace period (7 days) is over, unless they reinstall before then.
 */

const DAY = 24 * 60 * MIN;
const GRACE = 7 * DAY;

const dynamo = dynaliteForFile();

/**
 * Ticks, then runs every queued transition whose delay is over, as the transition worker would;
 * the others stay queued for a later call.
 */
async function tickAndWork(h: ReturnType<typeof harness>): Promise<void> {
  await h.pilot.tick();
  const now = h.clock.now();
  const due = h.queue.sent.filter((m) => m.message.at <= now);
  h.queue.sent = h.queue.sent.filter((m) => m.message.at > now);
  for (const { message } of due) {
    await h.pilot.wakeUser({ team: message.team, user: message.user });
  }
}

describe("tokens_revoked", () => {
  it("stops only the listed users: no call at their next change, and the tick skips them", async () => {
    // Prepare
    const h = harness(dynamo);
    const [ann, bob] = [await h.addUser("UANN"), await h.addUser("UBOB")];
    for (const key of [ann, bob]) {
      await h.pilot.applyTimeline(key, [block(T0 + 10 * MIN, T0 + 40 * MIN)], {
        sourceId: "work",
      });
    }
    // Act
    const stopped = await h.pilot.recordTokensRevoked(ann.team, [ann.user, "UNOBODY"]);
    h.clock.set(T0 + 10 * MIN);
    await tickAndWork(h);
    await h.pilot.reconcileUser(ann);
    // Assess
    expect(stopped).toBe(1);
    expect(h.gateway.calls.map((c) => c.target.key.user)).toEqual(["UBOB"]);
    expect(h.gateway.reads.map((t) => t.key.user)).not.toContain("UANN");
    expect((await h.pilot.getStatusView(ann))?.needsReauth?.code).toBe("token_revoked");
    expect((await h.store.getStatus(ann))?.nextTransitionAt).toBeUndefined();
  });

  it("resumes at once when a fresh token is stored", async () => {
    // Prepare
    const h = harness(dynamo);
    const ann = await h.addUser("UANN");
    await h.pilot.applyTimeline(ann, [block(T0 + 10 * MIN, T0 + 40 * MIN)], { sourceId: "work" });
    await h.pilot.recordTokensRevoked(ann.team, [ann.user]);
    h.clock.set(T0 + 15 * MIN);
    // Act
    await h.addUser("UANN", { token: "xoxp-fresh" });
    // Assess
    expect(h.gateway.calls.map((c) => c.target.token)).toEqual(["xoxp-fresh"]);
    expect((await h.pilot.getStatusView(ann))?.needsReauth).toBeUndefined();
  });
});

describe("app_uninstalled", () => {
  it("stops every user of the team at once, and no other team's", async () => {
    // Prepare
    const team = harness(dynamo);
    const other = harness(dynamo);
    const users = [await team.addUser("UANN"), await team.addUser("UBOB")];
    const outsider = await other.addUser("UCAT");
    for (const key of users) {
      await team.pilot.applyTimeline(key, [block(T0 + 10 * MIN, T0 + 40 * MIN)], {
        sourceId: "work",
      });
    }
    // Act
    const stopped = await team.pilot.recordAppUninstalled(users[0]?.team ?? "");
    team.clock.set(T0 + 10 * MIN);
    await tickAndWork(team);
    for (const key of users) await team.pilot.reconcileUser(key);
    // Assess
    expect(stopped).toBe(2);
    expect(team.gateway.calls).toEqual([]);
    for (const key of users) {
      const reauth = (await team.pilot.getStatusView(key))?.needsReauth;
      expect(reauth).toEqual({ code: "app_uninstalled", at: T0, deleteAt: T0 + GRACE });
    }
    expect((await other.pilot.getStatusView(outsider))?.needsReauth).toBeUndefined();
    // Uninstalled users' calendars are no longer read.
    expect(await team.pilot.loadSource(users[0] ?? outsider, "work")).toBeUndefined();
  });

  it("deletes the team's data when the grace period is over, through the tick", async () => {
    // Prepare
    const h = harness(dynamo);
    const users = [await h.addUser("UANN"), await h.addUser("UBOB")];
    await h.pilot.scheduleOutOfOffice(users[0] ?? { team: "", user: "" }, {
      start: T0 + DAY,
      end: T0 + 2 * DAY,
    });
    await h.pilot.recordAppUninstalled(users[0]?.team ?? "");
    // Act: a minute before the end of the grace period, then at its end
    h.clock.set(T0 + GRACE - MIN);
    await tickAndWork(h);
    const before = await Promise.all(users.map((k) => h.store.loadUser(k)));
    h.clock.set(T0 + GRACE);
    await tickAndWork(h);
    // Assess
    expect(before.map((s) => s.user !== undefined)).toEqual([true, true]);
    for (const key of users) {
      expect(await h.store.loadUser(key)).toEqual({ timelines: [], ooo: [] });
    }
    expect(h.gateway.calls).toEqual([]);
  });

  it("deletes only at the due wake-up past the grace period: a reconcile from any other function leaves the data", async () => {
    // Prepare
    const h = harness(dynamo);
    const ann = await h.addUser("UANN");
    await h.pilot.recordAppUninstalled(ann.team);
    // Act: a wake-up a minute early; then, the grace period over, a reconcile as the service
    // events, the sync worker or the web run one (their roles may not delete:
    // infra/resources/iam.yml), and the wake-up the due index gives.
    h.clock.set(T0 + GRACE - MIN);
    const early = await h.pilot.wakeUser(ann);
    h.clock.set(T0 + GRACE + MIN);
    const reconciled = await h.pilot.reconcileUser(ann);
    const kept = await h.store.getUser(ann);
    const woken = await h.pilot.wakeUser(ann);
    // Assess
    expect(early).toEqual({ kind: "needs_reauth", code: "app_uninstalled" });
    expect(reconciled).toEqual({ kind: "needs_reauth", code: "app_uninstalled" });
    expect(kept?.key).toEqual(ann);
    expect(woken).toEqual({ kind: "leave", reason: "deleted" });
    expect(await h.store.loadUser(ann)).toEqual({ timelines: [], ooo: [] });
    expect(h.gateway.calls).toEqual([]);
  });

  it("keeps a user who reinstalls within the grace period, and resumes them", async () => {
    // Prepare
    const h = harness(dynamo);
    const [ann, bob] = [await h.addUser("UANN"), await h.addUser("UBOB")];
    await h.pilot.recordAppUninstalled(ann.team);
    // Act: Ann reinstalls on day 3
    h.clock.set(T0 + 3 * DAY);
    await h.pilot.applyTimeline(ann, [block(T0 + 3 * DAY, T0 + 3 * DAY + 30 * MIN)], {
      sourceId: "work",
    });
    await h.addUser("UANN", { token: "xoxp-reinstalled" });
    h.clock.set(T0 + GRACE);
    await tickAndWork(h);
    // Assess: Ann is kept and resumed, Bob is gone
    expect((await h.store.getUser(ann))?.uninstalledAt).toBeUndefined();
    expect((await h.pilot.getStatusView(ann))?.needsReauth).toBeUndefined();
    expect(h.gateway.calls.map((c) => c.target.token)).toEqual(["xoxp-reinstalled"]);
    expect(await h.store.getUser(bob)).toBeUndefined();
  });

  it("keeps the deletion date when tokens_revoked comes after it (the order is not guaranteed)", async () => {
    // Prepare
    const h = harness(dynamo);
    const ann = await h.addUser("UANN");
    await h.pilot.recordAppUninstalled(ann.team);
    // Act
    h.clock.set(T0 + MIN);
    await h.pilot.recordTokensRevoked(ann.team, [ann.user]);
    // Assess
    const reauth = (await h.pilot.getStatusView(ann))?.needsReauth;
    expect(reauth).toEqual({ code: "app_uninstalled", at: T0 + MIN, deleteAt: T0 + GRACE });
    expect((await h.store.getStatus(ann))?.nextTransitionAt).toBe(T0 + GRACE);
  });
});
