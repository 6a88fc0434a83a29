import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "#lib/cli/io";
import { run as status } from "#lib/cli/status";

const bufferIo = () => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t) };
  return { io, out, err };
};

const NOW_MS = Date.UTC(2025, 2, 10, 11, 0, 0);
const meeting = { text: "In a meeting", emoji: ":calendar:", expiration: 0 };

/** A local stack's `/_local/status/{user}` answer whose actual status came from `source`. */
const answerWith = (source: string) => ({
  team: "T0DEMO",
  user: "U001",
  now: NOW_MS,
  view: { actual: { status: meeting, observedAt: NOW_MS - 1000, source } },
  profile: meeting,
});

describe("statuspilot status wording of where the actual status came from", () => {
  let server: Server;
  let port = 0;
  let source = "read";

  beforeAll(async () => {
    // Stands in for the local stack's control surface, over real HTTP on loopback.
    server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answerWith(source)));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const actualLine = async (observed: string): Promise<string | undefined> => {
    source = observed;
    const { io, out } = bufferIo();
    expect(await status(["U001", "--port", String(port)], io)).toBe(0);
    return out.find((line) => line.trimStart().startsWith("actual"));
  };

  it("says a status read before a write was seen on the profile", async () => {
    // Act
    const line = await actualLine("read");
    // Assess
    expect(line).toMatch(/actual +":calendar: In a meeting" \(seen on the profile\)$/);
  });

  it.each([
    ["ours", "set by Statuspilot"],
    ["manual", "set by hand"],
    ["expired", "cleared when it expired"],
    ["unknown", "not seen yet"],
    ["carrier-pigeon", "carrier-pigeon"],
  ])("words the source %s as %s", async (observed, words) => {
    // Act
    const line = await actualLine(observed);
    // Assess
    expect(line).toContain(`(${words})`);
  });
});

describe("statuspilot status and calendar addresses", () => {
  let server: Server;
  let port = 0;

  beforeAll(async () => {
    // The stack answers each address redacted; the CLI prints what it is given, one per line.
    server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          ...answerWith("ours"),
          view: {
            ...answerWith("ours").view,
            calendars: [
              { id: "cal1", kind: "ics", address: "https://cal.example/…9f3a" },
              { id: "cal2", kind: "generic", address: "http://127.0.0.1:8080/…" },
            ],
          },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("lists each calendar with its redacted address", async () => {
    const { io, out } = bufferIo();
    expect(await status(["U001", "--port", String(port)], io)).toBe(0);
    expect(out.filter((line) => / cal\d /.test(line))).toEqual([
      `  ${"calendars".padEnd(16)} cal1 (ics) https://cal.example/…9f3a`,
      `  ${"".padEnd(16)} cal2 (generic) http://127.0.0.1:8080/…`,
    ]);
  });
});
