import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type CookieJar,
  csrfOf,
  type FrontDoorStack,
  signedInAs,
  startFrontDoor,
  visit,
} from "./support";

// Issue 28 item 1: "Disconnect and delete my data" while a block of ours shows. Before the token
// is revoked, the status is cleared if, and only if, the profile still shows the one Statuspilot
// wrote (text and emoji together); a status the person set by hand stays. The expectations are
// read from the emulator: what the profile shows and the calls in the order it received them.

let stack: FrontDoorStack;

beforeEach(async () => {
  stack = await startFrontDoor();
});
afterEach(async () => {
  await stack.close();
});

/** Installs U001 through the front door, adds the demo calendar and lets its sync run. */
async function installedWithMeetingShowing(): Promise<CookieJar> {
  const jar = await signedInAs(stack, "U001");
  const page = await (await visit(jar, `${stack.web}/settings`)).text();
  await visit(jar, `${stack.web}/settings/calendars/add`, {
    form: { csrf: csrfOf(page), url: stack.calendarUrl },
  });
  await stack.drainSyncs();
  expect(shown()).toEqual({ text: "In a meeting", emoji: ":spiral_calendar_pad:" });
  return jar;
}

const shown = () => {
  const profile = stack.emulator.state().profiles.U001;
  return { text: profile?.status_text, emoji: profile?.status_emoji };
};

/** The person sets a status of their own, with their own token, as the service's client would. */
async function setByHand(text: string, emoji: string): Promise<void> {
  const res = await fetch(`${stack.emulator.apiBase}/users.profile.set`, {
    method: "POST",
    headers: { authorization: "Bearer xoxp-demo-U001", "content-type": "application/json" },
    body: JSON.stringify({
      profile: { status_text: text, status_emoji: emoji, status_expiration: 0 },
    }),
  });
  expect(await res.json()).toMatchObject({ ok: true });
}

async function disconnect(jar: CookieJar): Promise<Response> {
  const page = await (await visit(jar, `${stack.web}/settings`)).text();
  return visit(jar, `${stack.web}/settings/disconnect`, {
    form: { csrf: csrfOf(page), confirm: "on" },
  });
}

/** The methods Statuspilot's token called after `from` (its seq), in order. */
const appCallsSince = (from: number) =>
  stack.emulator
    .calls()
    .filter((c) => c.seq > from && c.app === "A0STATUSPILOT")
    .map((c) => ({ method: c.method, params: c.params }));

const lastSeq = () => stack.emulator.calls().at(-1)?.seq ?? 0;

describe("disconnecting while a status of ours shows (issue 28 item 1)", () => {
  it("reads the profile, clears our status, then revokes the token", async () => {
    // Prepare
    const jar = await installedWithMeetingShowing();
    const from = lastSeq();
    // Act
    const done = await disconnect(jar);
    // Assess: the status is gone, cleared with both fields empty and no expiration, before the
    // revoke (after it the token could clear nothing).
    expect(done.status).toBe(200);
    expect(shown()).toEqual({ text: "", emoji: "" });
    const calls = appCallsSince(from);
    expect(calls.map((c) => c.method)).toEqual([
      "users.profile.get",
      "users.profile.set",
      "auth.revoke",
    ]);
    expect(calls[1]?.params).toMatchObject({
      profile: expect.objectContaining({
        status_text: "",
        status_emoji: "",
        status_expiration: 0,
      }),
    });
  });

  it("leaves a status the person set by hand, even one Statuspilot never heard of", async () => {
    // Prepare: the person replaces our meeting with their own; no event reaches Statuspilot, so
    // only the profile can tell.
    const jar = await installedWithMeetingShowing();
    await setByHand("Lunch", ":sandwich:");
    const from = lastSeq();
    // Act
    const done = await disconnect(jar);
    // Assess
    expect(done.status).toBe(200);
    expect(shown()).toEqual({ text: "Lunch", emoji: ":sandwich:" });
    expect(appCallsSince(from).map((c) => c.method)).toEqual(["users.profile.get", "auth.revoke"]);
  });

  it("leaves a status that shares only our text or only our emoji", async () => {
    for (const [text, emoji] of [
      ["In a meeting", ":telephone_receiver:"],
      ["Call with the bank", ":spiral_calendar_pad:"],
    ] as const) {
      // Prepare
      const jar = await installedWithMeetingShowing();
      await setByHand(text, emoji);
      // Act
      await disconnect(jar);
      // Assess
      expect(shown()).toEqual({ text, emoji });
      // The next round starts from a fresh install of the same person.
      await setByHand("", "");
    }
  });
});
