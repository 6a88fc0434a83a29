import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningGoogleEmulator, startGoogleEmulator } from "#emulator/google/server";
import { type RunningMicrosoftEmulator, startMicrosoftEmulator } from "#emulator/microsoft/server";
import { type RunningEmulator, startEmulator } from "#emulator/server";
import { ManualClock } from "#lib/core/clock";
import { type IcsServer, startIcsServer } from "#lib/local/ics-server";
import { LOOPBACK_HOSTS, REBINDING_HOSTS, requestWithHost } from "../../support/loopback-hosts";
import { conformanceWorkspace } from "../service/harness";

/**
 * DNS rebinding against the local servers: a page on another site that points its own name at
 * 127.0.0.1 reaches them from the person's browser, with its own name as Host. The control and
 * state endpoints (the service emulator's `/_emulator/*`, the Google and Microsoft emulators'
 * `/_control/*`, the ICS server's feed uploads) answer only a loopback Host (127.0.0.1,
 * localhost, [::1], any port) and refuse any other with 403 `host_not_loopback`, changing
 * nothing; the APIs they stand in for answer whatever Host a client names, as the real ones do.
 */
const clock = new ManualClock(Date.UTC(2026, 2, 2, 9));
const FEED = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n";
let service: RunningEmulator;
let google: RunningGoogleEmulator;
let microsoft: RunningMicrosoftEmulator;
let ics: IcsServer;
beforeAll(async () => {
  service = await startEmulator({ workspace: conformanceWorkspace(), clock, expirySweepMs: 0 });
  google = await startGoogleEmulator({ clock });
  microsoft = await startMicrosoftEmulator({ clock, expirySweepMs: 0 });
  ics = await startIcsServer({ clock, feeds: { "/u.ics": FEED } });
});
afterAll(async () => {
  await Promise.all([service.close(), google.close(), microsoft.close(), ics.close()]);
});

const portOf = (url: string) => Number(new URL(url).port);
const json = (body: unknown) => ({ method: "POST", body: JSON.stringify(body) });

/** A control request of each server: its port, path and request. */
const CONTROL: Array<[string, () => number, string, { method?: string; body?: string }]> = [
  ["the service emulator's state", () => portOf(service.url), "/_emulator/state", {}],
  ["the service emulator's call log", () => portOf(service.url), "/_emulator/calls", {}],
  ["Google's state", () => google.port, "/_control/state", {}],
  ["Microsoft's state", () => microsoft.port, "/_control/state", {}],
];

function expectRefused(res: { status: number; headers: Record<string, unknown>; body: string }) {
  expect(res.status).toBe(403);
  expect(res.headers["x-content-type-options"]).toBe("nosniff");
  const body = JSON.parse(res.body) as { error: string; message: string };
  expect(body.error).toBe("host_not_loopback");
  expect(body.message).toMatch(/only requests addressed to 127\.0\.0\.1, localhost or \[::1\]/);
}

describe("the local servers' control endpoints", () => {
  describe.each(CONTROL)("%s", (_name, port, path, request) => {
    it.each(LOOPBACK_HOSTS)("answer Host %s", async (host) => {
      expect((await requestWithHost(port(), path, host, request)).status).toBe(200);
    });
    it.each(REBINDING_HOSTS)("refuse Host %j, showing nothing", async (host) => {
      const res = await requestWithHost(port(), path, host, request);
      expectRefused(res);
      expect(res.body).not.toMatch(/profiles|users|calls/);
    });
  });

  it("a refused request changes nothing: faults, uninstalls, feeds", async () => {
    const host = "rebind.attacker.example:8787";
    const servicePort = portOf(service.url);
    for (const [port, path, body] of [
      [servicePort, "/_emulator/faults", { spec: "internal_error=1" }],
      [servicePort, "/_emulator/uninstall", { team: "T0", app: "A0" }],
      [google.port, "/_control/faults", { rateLimit: { status: 429 } }],
      [microsoft.port, "/_control/faults", { throttleNext: 5 }],
    ] as const) {
      expectRefused(await requestWithHost(port, path, host, json(body)));
    }
    expectRefused(
      await requestWithHost(portOf(ics.url), "/u.ics", host, {
        method: "PUT",
        body: FEED.replace("2.0", "2.0\r\nX-WR-CALNAME:pwned"),
      }),
    );

    // No fault came of it, and the APIs answer a client whatever Host it names.
    const api = await requestWithHost(servicePort, "/api/team.profile.get", host, json({}));
    expect(JSON.parse(api.body)).toMatchObject({ ok: false, error: "not_authed" });
    const googleFaults = await requestWithHost(
      google.port,
      "/_control/faults",
      "127.0.0.1",
      json({}),
    );
    expect(JSON.parse(googleFaults.body)).toMatchObject({ rateLimit: null });
    const graph = await requestWithHost(microsoft.port, "/v1.0/me", host);
    expect(graph.status).toBe(401);
    const msState = await requestWithHost(microsoft.port, "/_control/state", "localhost");
    expect(JSON.parse(msState.body)).toMatchObject({ faults: {} });
    const feed = await requestWithHost(portOf(ics.url), "/u.ics", host);
    expect(feed.status).toBe(200);
    expect(feed.body).toBe(FEED);
  });

  it("a loopback Host may still change them", async () => {
    const put = await requestWithHost(portOf(ics.url), "/v.ics", "127.0.0.1", {
      method: "PUT",
      body: FEED,
    });
    expect(put.status).toBe(204);
    const faults = await requestWithHost(microsoft.port, "/_control/faults", "[::1]", json({}));
    expect(faults.status).toBe(200);
  });
});
