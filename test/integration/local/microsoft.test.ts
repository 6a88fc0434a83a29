import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "#lib/core/clock";
import { type LocalMicrosoft, localMicrosoft } from "#lib/local/microsoft";

// Without providers.microsoft the local stack gets the Microsoft emulator on a port the OS
// picks, and MICROSOFT_* pointing at it; with it, the configured addresses and no emulator.

const running: LocalMicrosoft[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

describe("localMicrosoft", () => {
  it("starts the emulator when none is configured, and its endpoints answer", async () => {
    const local = await localMicrosoft(undefined, {
      clock: new ManualClock(Date.UTC(2026, 10, 24)),
    });
    running.push(local);
    expect(local.emulator).toBeDefined();
    expect(local.env.MICROSOFT_GRAPH_BASE_URL).toBe(local.emulator?.graphBaseUrl);
    const token = await fetch(local.env.MICROSOFT_TOKEN_URL, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        client_id: local.env.MICROSOFT_CLIENT_ID,
        client_secret: local.env.MICROSOFT_CLIENT_SECRET,
        grant_type: "refresh_token",
        refresh_token: "unknown",
      }),
    });
    // A known client with a bad grant: the emulator's identity platform answered.
    expect(token.status).toBe(400);
    expect(((await token.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("uses the configured provider and starts nothing", async () => {
    const configured = {
      clientId: "id",
      clientSecret: "secret",
      authUrl: "https://login.example/authorize",
      tokenUrl: "https://login.example/token",
      graphBaseUrl: "https://graph.example/v1.0",
    };
    const local = await localMicrosoft(configured, { clock: new ManualClock(0) });
    running.push(local);
    expect(local.emulator).toBeUndefined();
    expect(local.env.MICROSOFT_AUTH_URL).toBe("https://login.example/authorize");
  });
});
