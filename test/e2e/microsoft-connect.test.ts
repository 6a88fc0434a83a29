import { afterEach, describe, expect, it } from "vitest";
import { DEMO_USERS } from "#emulator/microsoft/server";
import { systemClock } from "#lib/app/compose/system-clock";
import { visit } from "../integration/web/support";
import { type GoogleE2e, installAs, settingsHtml, startGoogleE2e, waitFor } from "./google-support";
import { profileOf, setCalls } from "./support";

/**
 * Issue 14 §2 over HTTP, in a real-time local stack with the Microsoft emulator beside it:
 * /install, then /connect/microsoft through the identity platform's consent to the first Graph
 * subscription (whose validation handshake our hook answers); then edits in the emulated
 * Outlook calendar reach the status through the change notification, within 3 s.
 */
const S = 1000;
const MS_USER = DEMO_USERS[0]?.id ?? "";
let e: GoogleE2e | undefined;
afterEach(async () => {
  await e?.close();
  e = undefined;
});

/** /connect/microsoft → the consent (approved as the demo account) → the callback; where it lands. */
async function connectMicrosoft(stack: GoogleE2e): Promise<{ start: URL; landing: string }> {
  const begin = await visit(stack.jar, `${stack.url}/connect/microsoft`);
  const start = new URL(begin.headers.get("location") ?? "");
  const approve = new URL(start.href);
  approve.searchParams.set("as", MS_USER);
  const consent = await visit(stack.jar, approve.href);
  const callback = await visit(stack.jar, consent.headers.get("location") ?? "");
  return { start, landing: callback.headers.get("location") ?? `status ${callback.status}` };
}

describe("Microsoft connected over HTTP", () => {
  it("connects to the first subscription, and an edit or a cancel reaches the status within 3 s", async () => {
    e = await startGoogleE2e();
    const stack = e;
    const microsoft = stack.stack.microsoft?.emulator;
    if (microsoft === undefined) throw new Error("the stack runs no Microsoft emulator");
    await installAs(stack, "U001");
    expect(await settingsHtml(stack)).toContain("Connect Microsoft");

    const { start, landing } = await connectMicrosoft(stack);
    expect(start.searchParams.get("scope")).toBe("offline_access Calendars.Read");
    expect(landing).toBe("/settings?notice=calendar_connected");
    const subscriptions = microsoft.subscriptions();
    expect(subscriptions).toHaveLength(1);
    expect(subscriptions[0]?.notificationUrl).toBe(`${stack.url}/hooks/graph`);
    expect(subscriptions[0]?.changeTypes).toEqual(["created", "updated", "deleted"]);

    const now = systemClock.now();
    const addedAt = systemClock.now();
    const id = microsoft.createEvent(MS_USER, {
      subject: "Design review",
      start: now - 60 * S,
      end: now + 600 * S,
    });
    const shown = await waitFor(10 * S, async () => {
      const p = await profileOf(stack, "U001").catch(() => undefined);
      return p && p.status_text !== "" ? systemClock.now() : undefined;
    });
    console.log(`e2e microsoft: edit to status ${shown - addedAt} ms (wall time)`);
    expect(shown - addedAt).toBeLessThan(3 * S);

    const cancelledAt = systemClock.now();
    microsoft.updateEvent(MS_USER, id, { isCancelled: true });
    const clear = await waitFor(10 * S, async () =>
      (await setCalls(stack, "U001")).find(
        (c) => c.at >= cancelledAt && c.outcome === "ok" && c.params?.profile !== undefined,
      ),
    );
    console.log(`e2e microsoft: cancel to clear ${clear.at - cancelledAt} ms (wall time)`);
    expect(clear.at - cancelledAt).toBeLessThan(3 * S);
    expect(await profileOf(stack, "U001")).toMatchObject({ status_text: "" });
  }, 60_000);
});
