import { describe, expect, it } from "vitest";
import type { UseCases } from "#lib/app/compose/use-cases";
import { addMember, emulatorPilot, useEmulatorStack } from "./emulator-harness";
import { block, MIN, T0 } from "./harness";

const stack = useEmulatorStack();

const pilot = (): UseCases => emulatorPilot(stack);

/** The calendar the timelines below come from. */
const WORK = { id: "work", url: "https://cal.example/work.ics", kind: "ics" } as const;

const profileOf = (user: string) => stack.emulator.state().profiles[user];

describe("reconcile through the real client against the emulator", () => {
  it("sets the status with its expiration and clears text and emoji together on cancel", async () => {
    // Prepare
    const p = pilot();
    const key = await addMember(p);
    const meeting = block(T0 - MIN, T0 + 30 * MIN);
    // Act
    await p.applyTimeline(key, [meeting], { sourceId: "work" });
    const shown = { ...profileOf("U0MEMBER") };
    await p.applyTimeline(key, [], { sourceId: "work" });
    // Assess
    expect([shown.status_text, shown.status_emoji, shown.status_expiration]).toEqual([
      "In a meeting",
      ":spiral_calendar_pad:",
      meeting.expiration,
    ]);
    const cleared = profileOf("U0MEMBER");
    expect([cleared?.status_text, cleared?.status_emoji, cleared?.status_expiration]).toEqual([
      "",
      "",
      0,
    ]);
  });

  it("changes a member's status with an admin's token through the user parameter", async () => {
    // Prepare
    const p = pilot();
    const key = { team: "T0CONF", user: "U0MEMBER2" };
    await p.upsertUser({
      key,
      tz: "Europe/Berlin",
      token: "xoxp-admin-0001",
      adminTokenUser: "U0ADMIN",
      sources: [WORK],
      mode: "auto",
    });
    // Act
    const outcome = await p.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN, "focus")], {
      sourceId: "work",
    });
    // Assess
    expect(outcome).toBeUndefined();
    expect(profileOf("U0MEMBER2")?.status_text).toBe("Focus time");
  });

  it("stops a user's writes after the service says the token is revoked", async () => {
    // Prepare
    const p = pilot();
    const key = await addMember(p, "xoxp-revoked-0001");
    await p.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    const callsBefore = stack.emulator.calls().length;
    // Act
    const outcome = await p.reconcileUser(key);
    // Assess
    expect(outcome).toEqual({ kind: "needs_reauth", code: "token_revoked" });
    expect(stack.emulator.calls().length).toBe(callsBefore);
  });

  it("stops when a member's token tries to change an admin's profile", async () => {
    // Prepare
    const p = pilot();
    const key = { team: "T0CONF", user: "U0ADMIN2" };
    await p.upsertUser({
      key,
      tz: "Europe/Berlin",
      token: "xoxp-member2-0001",
      adminTokenUser: "U0MEMBER2",
      sources: [WORK],
      mode: "auto",
    });
    // Act
    await p.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    const view = await p.getStatusView(key);
    // Assess
    expect(view?.needsReauth?.code).toMatch(/^(not_admin|cannot_update_admin_user|no_permission)$/);
    expect(profileOf("U0ADMIN2")?.status_text).toBe("");
  });
});
