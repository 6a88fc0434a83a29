import { describe, expect, it } from "vitest";
import { api, connect, listEvents, setup } from "./google-harness";

// The switchable rate-limit faults, over real HTTP. Bodies restate the Calendar API's error
// guide: "403: Rate Limit Exceeded", "403: User Rate Limit Exceeded" and "429: Too many
// requests", each `{error: {errors: [{domain: usageLimits, reason, message}], code, message}}`.
// (The 410, silent-channel and invalid_grant faults are tested beside what they spoil.)

const body = (code: number, reason: string, message: string) => ({
  error: { errors: [{ domain: "usageLimits", reason, message }], code, message },
});

describe("Google emulator: rate-limit faults", () => {
  it("403 rateLimitExceeded for the given number of calls, then normal answers", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    emu.control.faults({ rateLimit: { status: 403, times: 2 } });
    for (let i = 0; i < 2; i++) {
      const r = await listEvents(emu, accessToken, {});
      expect(r.status).toBe(403);
      expect(r.body).toEqual(body(403, "rateLimitExceeded", "Rate Limit Exceeded"));
    }
    expect((await listEvents(emu, accessToken, {})).status).toBe(200);
  });

  it("403 userRateLimitExceeded", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    emu.control.faults({ rateLimit: { status: 403, reason: "userRateLimitExceeded", times: 1 } });
    const r = await listEvents(emu, accessToken, {});
    expect(r.body).toEqual(body(403, "userRateLimitExceeded", "User Rate Limit Exceeded"));
  });

  it("429 until cleared, with Retry-After only when asked for; watch is limited too", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    emu.control.faults({ rateLimit: { status: 429, retryAfterS: 7 } });
    const r = await listEvents(emu, accessToken, {});
    expect(r.status).toBe(429);
    expect(r.body).toEqual(body(429, "rateLimitExceeded", "Rate Limit Exceeded"));
    expect(r.headers.get("retry-after")).toBe("7");
    const watch = await api(emu, accessToken, "/calendars/primary/events/watch", {
      method: "POST",
      body: { id: "c1", type: "web_hook", address: "https://hooks.example/google" },
    });
    expect(watch.status).toBe(429);
    emu.control.faults({ rateLimit: null });
    expect((await listEvents(emu, accessToken, {})).status).toBe(200);
  });

  it("a fault does not hide a missing token: authentication comes first", async () => {
    const { emu } = await setup();
    emu.control.faults({ rateLimit: { status: 429 } });
    expect((await api(emu, undefined, "/calendars/primary/events")).status).toBe(401);
  });
});
