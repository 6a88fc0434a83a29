import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "#emulator/server";
import { ManualClock } from "#lib/core/clock";
import { conformanceWorkspace } from "../service/harness";

/**
 * Spec 2.1 and 3: "`status_expiration` `0` or omitted: the status does not expire". Every call
 * goes over real HTTP, as the member's own chat client would send it, so nothing in our service
 * client can add an expiration the request did not carry.
 */
const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const MEMBER = "U0MEMBER";
const TOKEN = "xoxp-member-0001";

interface Status {
  status_text: string;
  status_emoji: string;
  status_expiration: number;
}

// The tests share one emulator and one clock that only moves forward.
let emu: RunningEmulator;
const clock = new ManualClock(T0);

beforeAll(async () => {
  emu = await startEmulator({ workspace: conformanceWorkspace(), clock, expirySweepMs: 0 });
});
afterAll(() => emu?.close());

/** One `users.profile.set` with the member's own token; answers the stored status. */
async function set(args: Record<string, unknown>, form = false): Promise<Status> {
  // A fresh rate-limit window for each call.
  clock.advance(61_000);
  const res = await fetch(`${emu.apiBase}/users.profile.set`, {
    method: "POST",
    headers: form
      ? {
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/x-www-form-urlencoded",
        }
      : { authorization: `Bearer ${TOKEN}`, "content-type": "application/json; charset=utf-8" },
    body: form
      ? new URLSearchParams(args as Record<string, string>).toString()
      : JSON.stringify(args),
  });
  const body = (await res.json()) as { ok: boolean; error?: string; profile?: Status };
  if (!body.ok || !body.profile) throw new Error(`users.profile.set: ${body.error}`);
  const { status_text, status_emoji, status_expiration } = body.profile;
  return { status_text, status_emoji, status_expiration };
}

/** What the emulator holds for the member, over HTTP, after its expiry sweep at `atS`. */
async function storedAt(atS: number): Promise<Status> {
  clock.set(atS * 1000);
  await fetch(`${emu.url}/_emulator/sweep`, { method: "POST" });
  const state = (await (await fetch(`${emu.url}/_emulator/state`)).json()) as {
    profiles: Record<string, Status>;
  };
  const p = state.profiles[MEMBER] as Status;
  return {
    status_text: p.status_text,
    status_emoji: p.status_emoji,
    status_expiration: p.status_expiration,
  };
}

/** A status that would expire in ten minutes, as a meeting's would. */
let meetingEndS = 0;
beforeEach(async () => {
  meetingEndS = Math.floor(clock.now() / 1000) + 61 + 600;
  await set({ profile: { status_text: "", status_emoji: "" } });
  await set({
    profile: {
      status_text: "In a meeting",
      status_emoji: ":calendar:",
      status_expiration: meetingEndS,
    },
  });
});

describe("users.profile.set: status_expiration 0 or omitted means the status does not expire", () => {
  it("a new status without status_expiration replaces the showing one's expiration with 0", async () => {
    // Act
    const answered = await set({ profile: { status_text: "Lunch", status_emoji: ":sandwich:" } });
    // Assess: still showing after the earlier status's expiration has passed
    expect(answered).toEqual({
      status_text: "Lunch",
      status_emoji: ":sandwich:",
      status_expiration: 0,
    });
    expect(await storedAt(meetingEndS + 3600)).toEqual(answered);
  });

  it("status_expiration 0 does the same", async () => {
    // Act
    const answered = await set({
      profile: { status_text: "Lunch", status_emoji: ":sandwich:", status_expiration: 0 },
    });
    // Assess
    expect(answered.status_expiration).toBe(0);
    expect((await storedAt(meetingEndS + 1)).status_text).toBe("Lunch");
  });

  it("a text-only or emoji-only change is a status set too, and no longer expires", async () => {
    // Act
    const textOnly = await set({ profile: { status_text: "Running late" } });
    const emojiOnly = await set({ profile: { status_emoji: ":runner:" } });
    // Assess
    expect(textOnly).toEqual({
      status_text: "Running late",
      status_emoji: ":calendar:",
      status_expiration: 0,
    });
    expect(emojiOnly).toEqual({
      status_text: "Running late",
      status_emoji: ":runner:",
      status_expiration: 0,
    });
    expect((await storedAt(meetingEndS + 1)).status_text).toBe("Running late");
  });

  it("the single name/value form and the form encoding follow the same rule", async () => {
    // Act
    const named = await set({ name: "status_text", value: "Lunch" }, true);
    // Assess
    expect(named).toMatchObject({ status_text: "Lunch", status_expiration: 0 });
    expect((await storedAt(meetingEndS + 1)).status_text).toBe("Lunch");
  });

  it("a set naming no status field leaves the status and its expiration as they were", async () => {
    // Act
    const answered = await set({ profile: { title: "Engineer" } });
    // Assess: the status was not set, so the rule does not apply; it still expires on time
    expect(answered).toEqual({
      status_text: "In a meeting",
      status_emoji: ":calendar:",
      status_expiration: meetingEndS,
    });
    expect(await storedAt(meetingEndS)).toEqual({
      status_text: "",
      status_emoji: "",
      status_expiration: 0,
    });
  });

  it("a set naming only status_expiration moves the showing status's expiration", async () => {
    // Act
    const answered = await set({ profile: { status_expiration: meetingEndS + 300 } });
    // Assess
    expect(answered).toEqual({
      status_text: "In a meeting",
      status_emoji: ":calendar:",
      status_expiration: meetingEndS + 300,
    });
    expect((await storedAt(meetingEndS + 1)).status_text).toBe("In a meeting");
    expect((await storedAt(meetingEndS + 300)).status_text).toBe("");
  });
});
