import { describe, expect, it } from "vitest";
import type { UseCaseOptions, UseCases } from "#lib/app/compose/use-cases";
import { ServiceStatusGateway } from "#lib/app/status/service-gateway";
import { ServiceClient } from "#lib/service/client";
import { addMember, emulatorPilot, useEmulatorStack } from "./emulator-harness";
import { block, MIN, T0 } from "./harness";

/*
 * Read-before-write through the real service client against the emulator, with every
 * user_change event dropped: the reconciler learns of the user's own status only by reading.
 */

const stack = useEmulatorStack({ faults: "drop_event=1" });
const { clock } = stack;

const pilot = (options: Partial<UseCaseOptions> = {}): UseCases => emulatorPilot(stack, options);

/** The user, with their own token, in the service's own client. */
const userClient = () => new ServiceClient({ baseUrl: stack.emulator.apiBase, clock });

const WORK = { id: "work", url: "https://cal.example/work.ics", kind: "ics" } as const;

const statusOf = (user: string) => {
  const p = stack.emulator.state().profiles[user];
  return [p?.status_text, p?.status_emoji, p?.status_expiration];
};

const callsOf = (user: string, since: number) =>
  stack.emulator
    .calls()
    .filter((c) => c.seq > since && c.user === user)
    .map((c) => c.method);

const lastSeq = () => stack.emulator.calls().at(-1)?.seq ?? 0;

describe("read before write against the emulator, user_change events dropped", () => {
  it("leaves the status the user set by hand at the next transition and when the meeting ends", async () => {
    // Prepare: the meeting status is showing.
    clock.set(T0);
    const p = pilot();
    const key = await addMember(p);
    const meeting = block(T0 - MIN, T0 + 10 * MIN);
    const focus = block(T0 + 10 * MIN, T0 + 40 * MIN, "focus");
    await p.applyTimeline(key, [meeting, focus], { sourceId: "work" });
    expect(statusOf("U0MEMBER")[0]).toBe("In a meeting");
    // The user sets their own status; its user_change is dropped.
    clock.advance(60_000);
    await userClient().setStatus({
      token: "xoxp-member-0001",
      budgetUser: "U0MEMBER",
      status: { text: "Walking the dog", emoji: ":dog:", expiration: 0 },
    });
    const before = lastSeq();
    // Act: the focus block starts, then ends.
    clock.set(focus.start);
    const atFocus = await p.reconcileUser(key);
    clock.set(focus.end + MIN);
    const afterFocus = await p.reconcileUser(key);
    // Assess
    expect(stack.emulator.state().deliveries.filter((d) => d.outcome !== "dropped")).toEqual([]);
    expect(atFocus).toEqual({ kind: "leave", reason: "manual override" });
    expect(afterFocus).toEqual({ kind: "leave", reason: "manual override" });
    expect(statusOf("U0MEMBER")).toEqual(["Walking the dog", ":dog:", 0]);
    expect(callsOf("U0MEMBER", before)).toEqual(["users.profile.get"]);
  });

  it("costs one users.profile.get per users.profile.set, and the write budget counts only the sets", async () => {
    // Prepare: twelve back-to-back blocks for another user (one token, one user).
    clock.set(T0 + 1000 * MIN);
    const start = clock.now();
    const p = pilot();
    const key = { team: "T0CONF", user: "U0MEMBER2" };
    await p.upsertUser({
      key,
      tz: "Europe/Berlin",
      token: "xoxp-member2-0001",
      sources: [WORK],
      mode: "auto",
    });
    const blocks = Array.from({ length: 12 }, (_, i) =>
      block(start + i * MIN, start + (i + 1) * MIN, i % 2 === 0 ? "meeting" : "focus"),
    );
    const before = lastSeq();
    // Act: each transition fires at its start (12 writes in 12 minutes, over 10 reads a minute).
    await p.applyTimeline(key, blocks, { sourceId: "work" });
    const outcomes = [];
    for (const b of blocks.slice(1)) {
      clock.set(b.start);
      outcomes.push((await p.reconcileUser(key)).kind);
    }
    // Assess
    const methods = callsOf("U0MEMBER2", before);
    expect(outcomes).toEqual(Array(11).fill("set"));
    expect(methods.filter((m) => m === "users.profile.set")).toHaveLength(12);
    expect(methods.filter((m) => m === "users.profile.get")).toHaveLength(12);
    expect(stack.emulator.calls().filter((c) => c.seq > before && c.outcome !== "ok")).toEqual([]);
  });

  it("overwrites the user's own status when verifyBeforeWrite is off (the lost-event bug)", async () => {
    // Prepare
    clock.set(T0 + 2000 * MIN);
    const now = clock.now();
    const p = pilot({ verifyBeforeWrite: false });
    const key = { team: "T0CONF", user: "U0OWNER" };
    await p.upsertUser({
      key,
      tz: "Europe/Berlin",
      token: "xoxp-owner-0001",
      sources: [WORK],
      mode: "auto",
    });
    const meeting = block(now - MIN, now + 10 * MIN);
    const focus = block(now + 10 * MIN, now + 40 * MIN, "focus");
    await p.applyTimeline(key, [meeting, focus], { sourceId: "work" });
    await userClient().setStatus({
      token: "xoxp-owner-0001",
      budgetUser: "U0OWNER",
      status: { text: "Walking the dog", emoji: ":dog:", expiration: 0 },
    });
    // Act
    clock.set(focus.start);
    await p.reconcileUser(key);
    // Assess
    expect(statusOf("U0OWNER")[0]).toBe("Focus time");
  });

  it("reads another member's status through an admin's token with the user parameter", async () => {
    // Prepare
    const gateway = new ServiceStatusGateway(
      new ServiceClient({ baseUrl: stack.emulator.apiBase, clock }),
    );
    const shown = { text: "Heads down", emoji: ":headphones:", expiration: 0 };
    await userClient().setStatus({
      token: "xoxp-member2-0001",
      budgetUser: "U0MEMBER2",
      status: shown,
    });
    // Act
    const read = await gateway.readStatus({
      key: { team: "T0CONF", user: "U0MEMBER2" },
      token: "xoxp-admin-0001",
      adminUser: "U0ADMIN",
    });
    const revoked = await gateway
      .readStatus({ key: { team: "T0CONF", user: "U0MEMBER" }, token: "xoxp-revoked-0001" })
      .catch((e: unknown) => e);
    // Assess
    expect(read.actual).toEqual(shown);
    expect(revoked).toMatchObject({ name: "GatewayError", code: "token_revoked", final: true });
  });
});
