import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "#lib/app/compose/system-clock";
import { run as status } from "#lib/cli/status";
import { CookieJar, visit } from "../integration/web/support";
import {
  addGoogleEvent,
  cancelGoogleEvent,
  connectGoogle,
  deliverPushes,
  type GoogleE2e,
  googleChannels,
  installAs,
  settingsHtml,
  startGoogleE2e,
  waitFor,
} from "./google-support";
import { advanceTo, nowOf, profileOf, setCalls } from "./support";

/**
 * Issue 14 over HTTP, in a real-time local stack with the Google emulator: /install, then
 * /connect/google through Google's consent to the first watch channel; then edits in the
 * emulated calendar reach the status through the push, within 3 s. The stack's clock skips
 * ahead over what a test would only sit through; the last seconds run in real time.
 */
const S = 1000;
let e: GoogleE2e | undefined;
afterEach(async () => {
  await e?.close();
  e = undefined;
});

describe("Google connected over HTTP", () => {
  it("connects from the settings page to the first watch channel, and pushes within 3 s", async () => {
    e = await startGoogleE2e();
    const stack = e;
    await installAs(stack, "U001");
    expect(await settingsHtml(stack)).toContain("Connect Google");

    // Act: connect Google.
    const { start, landing } = await connectGoogle(stack);

    // Assess: Google's consent asked for offline read-only access; one live channel to our hook.
    expect(start.searchParams.get("access_type")).toBe("offline");
    expect(start.searchParams.get("prompt")).toBe("consent");
    expect(start.searchParams.get("scope")).toBe(
      "https://www.googleapis.com/auth/calendar.events.readonly",
    );
    expect(landing).toBe("/settings?notice=calendar_connected");
    const channels = await googleChannels(stack);
    expect(channels).toHaveLength(1);
    expect(String(channels[0]?.address)).toBe(`${stack.url}/hooks/google`);
    expect(String(channels[0]?.id)).toMatch(/^[0-9a-f]{32}$/);
    const page = await settingsHtml(stack);
    expect(page).toContain("Google calendar (connected)");
    expect(page).toContain("pushed as they happen");
    expect(page).not.toContain("Connect Google");
    // `statuspilot status` shows the push state and expiry too.
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t) };
    expect(await status(["U001", "--team", "T0DEMO", "--port", String(stack.stack.port)], io)).toBe(
      0,
    );
    expect(out.join("\n")).toMatch(/push google-\S+ +live, expires \d{4}-/);

    // Act: a meeting that started a minute ago appears in Google.
    const now = systemClock.now();
    const addedAt = systemClock.now();
    const id = await addGoogleEvent(stack, {
      summary: "Design review",
      start: now - 60 * S,
      end: now + 600 * S,
    });
    const shown = await waitFor(10 * S, async () => {
      const p = await profileOf(stack, "U001").catch(() => undefined);
      return p && p.status_text !== "" ? systemClock.now() : undefined;
    });
    console.log(`e2e google: edit to status ${shown - addedAt} ms (wall time)`);
    expect(shown - addedAt).toBeLessThan(3 * S);

    // Act: it is cancelled while it shows.
    const cancelledAt = systemClock.now();
    await cancelGoogleEvent(stack, id);
    const clear = await waitFor(10 * S, async () =>
      (await setCalls(stack, "U001")).find(
        (c) => c.at >= cancelledAt && c.outcome === "ok" && c.params?.profile !== undefined,
      ),
    );
    console.log(`e2e google: cancel to clear ${clear.at - cancelledAt} ms (wall time)`);
    expect(clear.at - cancelledAt).toBeLessThan(3 * S);
    expect(await profileOf(stack, "U001")).toMatchObject({ status_text: "" });
  }, 60_000);

  it("a meeting created 1 minute ahead shows within 3 s of its start", async () => {
    e = await startGoogleE2e();
    const stack = e;
    await installAs(stack, "U001");
    await connectGoogle(stack);
    // Act: whole seconds, a minute from now on the stack's clock. Once its push is handled,
    // the clock skips to 2 s before the start; the rest runs in real time.
    const start = Math.ceil(((await nowOf(stack)) + 60 * S) / S) * S;
    await addGoogleEvent(stack, { summary: "Standup", start, end: start + 15 * 60 * S });
    await deliverPushes(stack);
    await advanceTo(stack, start - 2 * S);
    const shown = await waitFor(15 * S, async () =>
      (await setCalls(stack, "U001")).find(
        (c) => c.outcome === "ok" && JSON.stringify(c.params?.profile ?? "").includes("meeting"),
      ),
    );
    // Assess
    console.log(`e2e google: start to status ${shown.at - start} ms (stack clock, real time)`);
    expect(shown.at - start).toBeGreaterThanOrEqual(0);
    expect(shown.at - start).toBeLessThan(3 * S);
  }, 60_000);

  it("refuses a connect state issued to another person's session, and connects nothing", async () => {
    e = await startGoogleE2e();
    const stack = e;
    await installAs(stack, "U001");
    // U001 starts connecting; Google's consent answers with the code and U001's state.
    const begin = await visit(stack.jar, `${stack.url}/connect/google`);
    const consent = await visit(stack.jar, begin.headers.get("location") ?? "");
    const callbackUrl = consent.headers.get("location") ?? "";
    // Act: U002, signed in in another browser, is sent to that callback.
    const other: GoogleE2e = { ...stack, jar: new CookieJar() };
    await installAs(other, "U002");
    const refused = await visit(other.jar, callbackUrl);
    // Assess
    expect(refused.status).toBe(400);
    expect(await settingsHtml(other)).toContain("Connect Google");
    expect(await googleChannels(stack)).toHaveLength(0);
    // The state was not spent: U001's own callback still connects.
    const own = await visit(stack.jar, callbackUrl);
    expect(own.headers.get("location")).toBe("/settings?notice=calendar_connected");
  }, 60_000);
});
