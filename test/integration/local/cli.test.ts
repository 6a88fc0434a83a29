import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "#lib/cli/io";
import { run as start } from "#lib/cli/start";
import { run as status } from "#lib/cli/status";

const bufferIo = () => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t) };
  return { io, out, err };
};

const waitFor = async (check: () => boolean, ms = 20_000) => {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > ms) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe("statuspilot start and status", () => {
  const stop = new AbortController();
  const started = bufferIo();
  let exit: Promise<number>;
  let port = 0;
  // Its own state directory, so the run neither reads nor leaves the repository's `.statuspilot`.
  const stateDir = mkdtempSync(path.join(tmpdir(), "statuspilot-cli-"));

  beforeAll(async () => {
    exit = start(
      ["--port", "0", "--emulator-port", "0", "--state-dir", stateDir],
      started.io,
      stop.signal,
    );
    await waitFor(() => started.out.some((l) => l.startsWith("Press Ctrl-C")));
    const line = started.out.find((l) => l.includes("handlers")) ?? "";
    port = Number(/127\.0\.0\.1:(\d+)/.exec(line)?.[1]);
  });
  afterAll(async () => {
    stop.abort();
    await exit;
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("starts the demo stack and says when the first meeting begins", () => {
    expect(port).toBeGreaterThan(0);
    expect(started.out.join("\n")).toMatch(
      /U001's first meeting starts at \d\d:\d\d:\d\d; times are in /,
    );
    expect(started.err).toEqual([]);
  });

  it("prints the address of each emulator it runs: the service's, Google's and Microsoft's", async () => {
    // Prepare: one line per emulator, each with its own address
    const origin = (name: string) => {
      const line = started.out.find((l) => l.trim().startsWith(`${name} `)) ?? "";
      return /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1] ?? "";
    };
    const [service, google, microsoft] = [origin("service"), origin("google"), origin("microsoft")];
    expect(new Set([service, google, microsoft, `http://127.0.0.1:${port}`]).size).toBe(4);
    // Act / Assess: each address is the emulator it names (its control surface answers there)
    expect((await fetch(`${google}/_control/state`)).status).toBe(200);
    expect((await fetch(`${microsoft}/_control/state`)).status).toBe(200);
  });

  it("prints the install link and installs through the emulator it runs, on any port", async () => {
    // Prepare: the stack picked a random port, not the demo's 3000 of `redirect_urls`
    const open = started.out.find((l) => l.startsWith("open "));
    expect(open).toMatch(new RegExp(`^open http://127\\.0\\.0\\.1:${port}/install`));
    const service = started.out.find((l) => l.trim().startsWith("service")) ?? "";
    const emulatorOrigin = /(http:\/\/127\.0\.0\.1:\d+)/.exec(service)?.[1] ?? "";
    // Act: /install, the consent approved as U002, the callback with /install's cookie
    const install = await fetch(`http://127.0.0.1:${port}/install`, { redirect: "manual" });
    const authorize = new URL(install.headers.get("location") ?? "");
    const consent = await fetch(`${authorize.href}&as=U002`, { redirect: "manual" });
    const callback = consent.headers.get("location") ?? "";
    const cookie = install.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const landed = await fetch(callback, { redirect: "manual", headers: { cookie } });
    // Assess: the workspace's app is the OAuth client, the redirect comes back to this stack
    expect(authorize.origin).toBe(emulatorOrigin);
    expect(authorize.searchParams.get("client_id")).toBe("T0DEMO.A0STATUSPILOT");
    expect(authorize.searchParams.get("redirect_uri")).toBe(
      `http://127.0.0.1:${port}/oauth/callback`,
    );
    expect(callback).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/oauth/callback\\?code=`));
    expect(landed.status).toBe(302);
    expect(landed.headers.get("location")).toBe("/settings");
    const session = landed.headers.getSetCookie().find((c) => c.startsWith("statuspilot_session="));
    expect(session).toMatch(/HttpOnly/);
    const settings = await fetch(`http://127.0.0.1:${port}/settings`, {
      redirect: "manual",
      headers: { cookie: session?.split(";")[0] ?? "" },
    });
    expect(settings.status).toBe(200);
    // U002's page: days in their zone, as the workspace gives it (users.info)
    expect(await settings.text()).toContain("America/New_York");
  });

  it("prints how to open the Home tab, and what it prints publishes U001's Home view", async () => {
    // Prepare: the printed command's address and body
    const line = started.out.find((l) => l.startsWith("home tab")) ?? "";
    const url = /(http:\/\/127\.0\.0\.1:\d+\/_emulator\/home_opened)/.exec(line)?.[1] ?? "";
    const body = /-d '([^']+)'/.exec(line)?.[1] ?? "";
    expect(url).not.toBe("");
    // Act: what the printed curl does
    const opened = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    // Assess: the view the app published for U001, in the emulator's state
    expect(opened.status).toBe(200);
    const stateUrl = url.replace("/_emulator/home_opened", "/_emulator/state");
    const viewOf = async () =>
      ((await (await fetch(stateUrl)).json()) as { home_views: Record<string, unknown> }).home_views
        .U001;
    let view = await viewOf();
    for (let waited = 0; view === undefined && waited < 2000; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
      view = await viewOf();
    }
    expect(JSON.stringify(view)).toContain("Sync now");
  });

  it("shows a user's state from a second process's point of view, over HTTP", async () => {
    // Prepare
    const { io, out } = bufferIo();
    // Act
    const code = await status(["U001", "--port", String(port)], io);
    // Assess
    expect(code).toBe(0);
    expect(out[0]).toMatch(/^U001 \(T0DEMO\) at /);
    expect(out.join("\n")).toMatch(/on the profile +(empty|".+")/);
    expect(out.join("\n")).toMatch(/actual +/);
  });

  it("says which user it does not know", async () => {
    // Prepare
    const { io, err } = bufferIo();
    // Act
    const code = await status(["U999", "--port", String(port)], io);
    // Assess
    expect(code).toBe(1);
    expect(err).toEqual(["no user U999 in this stack"]);
  });

  it("exits 1 naming the user and team when the team has no such user", async () => {
    // Prepare
    const { io, out, err } = bufferIo();
    // Act
    const code = await status(["U002", "--team", "TNOPE", "--port", String(port)], io);
    // Assess
    expect(code).toBe(1);
    expect(err).toEqual(["no user U002 in team TNOPE"]);
    expect(out).toEqual([]);
  });

  it("refuses to move the clock of a stack on real time", async () => {
    // Act
    const res = await fetch(`http://127.0.0.1:${port}/_local/clock`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ advanceMs: 60_000 }),
    });
    // Assess
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: "not_manual_clock" });
    const clock = (await (await fetch(`http://127.0.0.1:${port}/_local/clock`)).json()) as {
      mode: string;
    };
    expect(clock.mode).toBe("real");
  });

  it("prints the handlers' warnings as readable lines, not JSON", async () => {
    // Prepare: a Graph notification for a subscription nobody has makes the handler warn
    const before = started.err.length;
    // Act
    const res = await fetch(`http://127.0.0.1:${port}/hooks/graph`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        value: [{ subscriptionId: "nope", clientState: "s3cret-state", changeType: "updated" }],
      }),
    });
    await waitFor(() => started.err.length > before, 5000).catch(() => undefined);
    // Assess
    expect(res.status).toBeLessThan(500);
    const lines = started.err.slice(before);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).toMatch(/^\d\d:\d\d:\d\d (warning|error): /);
      expect(line).not.toContain("s3cret-state");
    }
  });

  it("fails in one line when the handlers port is busy", async () => {
    // Prepare
    const { io, err } = bufferIo();
    // Act
    const code = await start(["--port", String(port), "--emulator-port", "0"], io);
    // Assess
    expect(code).toBe(69);
    expect(err).toEqual([
      `port ${port} (handlers) is already in use; pick another with the matching --*port flag`,
    ]);
  });
});

describe("statuspilot status without a stack", () => {
  let server: Server;
  let freePort = 0;
  beforeAll(async () => {
    // Take a port, then free it, so nothing listens there.
    server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    freePort = (server.address() as AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
  });

  it("tells the user to start one", async () => {
    // Prepare
    const { io, err } = bufferIo();
    // Act
    const code = await status(["U001", "--port", String(freePort)], io);
    // Assess
    expect(code).toBe(69);
    expect(err[0]).toBe(
      `no local stack answers on 127.0.0.1:${freePort}; start one with \`npm start\``,
    );
  });

  it("rejects usage errors with the usage line", async () => {
    const { io, err } = bufferIo();
    expect(await status([], io)).toBe(64);
    expect(err[0]).toContain("usage: statuspilot status USER");
  });
});
