import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { CliIo } from "#lib/cli/io";
import { run as metrics } from "#lib/cli/metrics";

const bufferIo = () => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t) };
  return { io, out, err };
};

describe("statuspilot metrics", () => {
  it("refuses arguments it does not know with its usage and exit code 64", async () => {
    const { io, err } = bufferIo();
    expect(await metrics(["U001"], io)).toBe(64);
    expect(await metrics(["--port", "0"], io)).toBe(64);
    expect(err.join("\n")).toContain("usage: statuspilot metrics");
  });

  it("says no stack answers, with exit code 69, when nothing listens on the port", async () => {
    // Prepare: a port that was free a moment ago
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const { io, err } = bufferIo();
    // Act
    const code = await metrics(["--port", String(port)], io);
    // Assess
    expect(code).toBe(69);
    expect(err.join("\n")).toContain(`no local stack answers on 127.0.0.1:${port}`);
  });

  it("says so when nothing was recorded yet", async () => {
    // Prepare: stands in for the stack's control surface
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ now: 0, series: [] }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const { io, out } = bufferIo();
    try {
      // Act
      const code = await metrics(["--port", String(port)], io);
      // Assess
      expect(code).toBe(0);
      expect(out).toEqual(["no metrics recorded yet"]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
