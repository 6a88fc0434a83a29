import { afterEach, describe, expect, it } from "vitest";
import { DEMO_USERS, type RunningMicrosoftEmulator } from "#emulator/microsoft/server";
import { visit } from "../integration/web/support";
import { type GoogleE2e, installAs, settingsHtml, startGoogleE2e } from "./google-support";
import { expectToldToReconnect, messagesTo, runQueued } from "./home-support";
import { advance, nowOf, profileOf, settle } from "./support";

/**
 * Graph's lifecycle notifications over HTTP, on the stack's hand-moved clock (the Microsoft
 * emulator shares it): `subscriptionRemoved` → a new subscription at once (the notification
 * queues the source's upkeep), `reauthorizationRequired` → a PATCH renewal by that upkeep (the
 * changes Graph held are reported as `missed`, which re-syncs), and pushes go on.
 */
const MIN = 60_000;
const T0 = Date.parse("2026-03-02T08:00:00.000Z");
const MS_USER = DEMO_USERS[0]?.id ?? "";
let e: GoogleE2e | undefined;
afterEach(async () => {
  await e?.close();
  e = undefined;
});

const graphOf = (stack: GoogleE2e): RunningMicrosoftEmulator => {
  const graph = stack.stack.microsoft?.emulator;
  if (graph === undefined) throw new Error("the stack runs no Microsoft emulator");
  return graph;
};

async function deliver(stack: GoogleE2e): Promise<void> {
  await graphOf(stack).flushNotifications();
  await settle(stack);
  await advance(stack, 0);
}

async function connected(): Promise<GoogleE2e> {
  const stack = await startGoogleE2e({ manualAt: T0, pushTtlMs: 24 * 60 * MIN });
  await installAs(stack, "U001");
  const begin = await visit(stack.jar, `${stack.url}/connect/microsoft`);
  const consent = new URL(begin.headers.get("location") ?? "");
  consent.searchParams.set("as", MS_USER);
  const approved = await visit(stack.jar, consent.href);
  const callback = await visit(stack.jar, approved.headers.get("location") ?? "");
  expect(callback.headers.get("location")).toBe("/settings?notice=calendar_connected");
  await deliver(stack);
  return stack;
}

async function meetingNowShows(stack: GoogleE2e, subject: string): Promise<string> {
  await advance(stack, 1000);
  const now = await nowOf(stack);
  graphOf(stack).createEvent(MS_USER, { subject, start: now - MIN, end: now + 30 * MIN });
  await deliver(stack);
  return (await profileOf(stack, "U001")).status_text;
}

const writes = (graph: RunningMicrosoftEmulator, method: string) =>
  graph.calls().filter((c) => c.method === method && c.path.startsWith("/v1.0/subscriptions"))
    .length;

describe("the Graph push lifecycle", () => {
  it("recreates a removed subscription at once, and pushes go on", async () => {
    e = await connected();
    const graph = graphOf(e);
    const [first] = graph.subscriptions();
    expect(first).toBeDefined();
    // Act: Outlook removes the subscription; the lifecycle notification reaches our hook, which
    // queues the source's upkeep: it recreates the subscription right away.
    graph.removeSubscription(first?.id ?? "");
    await deliver(e);
    const [second, more] = graph.subscriptions();
    expect(more).toBeUndefined();
    expect(second?.id).toBeDefined();
    expect(second?.id).not.toBe(first?.id);
    expect(await meetingNowShows(e, "After the removal")).not.toBe("");
  }, 60_000);

  it("renews at the next upkeep after reauthorizationRequired; held changes come back as missed", async () => {
    e = await connected();
    const graph = graphOf(e);
    const [sub] = graph.subscriptions();
    const patchesBefore = writes(graph, "PATCH");
    graph.requireReauthorization(sub?.id ?? "");
    await deliver(e);
    // A change while Graph holds notifications: none arrives yet.
    await advance(e, 1000);
    const now = await nowOf(e);
    graph.createEvent(MS_USER, { subject: "Held", start: now - MIN, end: now + 30 * MIN });
    await deliver(e);
    // Act: the upkeep the notification queued renews (PATCH), Graph reports `missed`, the source
    // re-syncs.
    await advance(e, 16 * MIN);
    await deliver(e);
    await deliver(e);
    expect(writes(graph, "PATCH")).toBeGreaterThan(patchesBefore);
    expect(graph.subscriptions().map((s) => s.id)).toEqual([sub?.id]);
    expect((await profileOf(e, "U001")).status_text).not.toBe("");
    expect(await meetingNowShows(e, "After the renewal")).not.toBe("");
  }, 60_000);

  it("a refresh token Microsoft revoked (invalid_grant) asks the person to connect again, by message too", async () => {
    e = await connected();
    const before = (await messagesTo(e, "U001")).length;
    graphOf(e).revokeRefreshTokens(MS_USER);
    // Act: past the access token's hour, a change pushes; its read must refresh, and cannot.
    await advance(e, 61 * MIN);
    await meetingNowShows(e, "Unreadable");
    await runQueued(e);
    // Assess: the page, one message with the way to connect again, and the tab's Reconnect.
    expect(await settingsHtml(e)).toContain('href="/connect/microsoft"');
    await expectToldToReconnect(e, "U001", before, "/connect/microsoft");
  }, 60_000);
});
