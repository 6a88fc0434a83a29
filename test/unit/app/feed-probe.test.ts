import type { ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { functionConfig, readFunctionsConfig } from "#devstack/functions-config";
import { createFeedProbe, PROBE_TIMEOUT_MS } from "#lib/app/sync/feed-probe";
import { DEFAULT_SYNC_LIMITS } from "#lib/app/sync/sync";
import { MAX_FEED_BYTES } from "#lib/calendar/feed-body";
import { type RouteServer, serveRoutes } from "../../support/route-server";

/**
 * The check of a new calendar address has the sync's limits: the sync's byte cap on the bytes
 * after gzip is undone, reading stopped there, and a deadline well inside the web function's
 * timeout, past which the person is told the calendar could not be reached.
 */

const MB = 1024 * 1024;
const HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n";
/** 1 MB of a calendar's text, gzipped: about 1 KB. Members of a gzip stream can follow each other. */
const oneMbGzipped = gzipSync(Buffer.from(HEAD + "X".repeat(MB - HEAD.length)), { level: 9 });

let server: RouteServer;
let base = "";
/** Bytes each path's answer wrote before the reader stopped it. */
const written = new Map<string, number>();

/** Writes `chunks` one after another, as the reader takes them, counting what went out. */
function pump(path: string, res: ServerResponse, chunks: number, chunk: () => Buffer): void {
  let sent = 0;
  const next = () => {
    while (sent < chunks) {
      const buffer = chunk();
      sent++;
      written.set(path, (written.get(path) ?? 0) + buffer.length);
      if (!res.write(buffer)) return void res.once("drain", next);
    }
    res.end();
  };
  res.on("close", () => res.destroy());
  next();
}

const routes: Record<string, (res: ServerResponse) => void> = {
  "/ok.ics": (res) => res.writeHead(200).end(`${HEAD}END:VCALENDAR\r\n`),
  // 306 KB on the wire, 300 MB once inflated (issue 29's).
  "/bomb.ics": (res) => {
    res.writeHead(200, { "content-type": "text/calendar", "content-encoding": "gzip" });
    pump("/bomb.ics", res, 300, () => oneMbGzipped);
  },
  // 52 MB, sent without a length.
  "/plain-52mb.ics": (res) => {
    res.writeHead(200, { "content-type": "text/calendar" });
    pump("/plain-52mb.ics", res, 52, () => Buffer.alloc(MB, "X"));
  },
  // Declares 52 MB: refused before a byte is read.
  "/declared-52mb.ics": (res) => {
    res.writeHead(200, { "content-length": String(52 * MB) });
    pump("/declared-52mb.ics", res, 52, () => Buffer.alloc(MB, "X"));
  },
  // Answers at once, then a line every 50 ms, for ever.
  "/drip.ics": (res) => {
    res.writeHead(200, { "content-type": "text/calendar" });
    res.write(HEAD);
    const timer = setInterval(() => res.write("X-DRIP:1\r\n"), 50);
    res.on("close", () => clearInterval(timer));
  },
  "/silent.ics": () => undefined,
};

beforeAll(async () => {
  server = await serveRoutes(routes);
  base = server.base;
});
afterAll(() => server.close());

const guard = { policy: { allowPrivate: true }, resolveHost: async () => ["127.0.0.1"] };

describe("the check of a new calendar address", () => {
  it("takes a calendar within the cap", async () => {
    expect(await createFeedProbe(fetch, guard)(`${base}/ok.ics`)).toEqual({
      feed: { body: `${HEAD}END:VCALENDAR\r\n` },
    });
  });

  it("refuses a gzip that inflates past the sync's cap, reading no further than the cap", async () => {
    // Arrange
    const probe = createFeedProbe(fetch, guard);
    const rssBefore = process.memoryUsage().rss;
    // Act
    const problem = await probe(`${base}/bomb.ics`);
    // Assert: all 306 KB may sit in socket buffers, but the process did not take the 300 MB.
    expect(problem).toEqual({ problem: "the calendar is larger than 10 MB" });
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * MB);
  });

  it("refuses a plain body past the cap, whether it declares its length or not", async () => {
    const probe = createFeedProbe(fetch, guard);
    expect(await probe(`${base}/plain-52mb.ics`)).toEqual({
      problem: "the calendar is larger than 10 MB",
    });
    expect(await probe(`${base}/declared-52mb.ics`)).toEqual({
      problem: "the calendar is larger than 10 MB",
    });
    // Reading stopped at the cap: what went out is the cap and what was in flight, not 52 MB.
    expect(written.get("/plain-52mb.ics")).toBeLessThan(20 * MB);
  });

  it("gives up on a feed that drips for ever, or never answers, at its deadline", async () => {
    // Arrange: a deadline of 300 ms instead of PROBE_TIMEOUT_MS, so the test waits little.
    const probe = createFeedProbe(fetch, guard, { timeoutMs: 300, maxBytes: MAX_FEED_BYTES });
    for (const path of ["/drip.ics", "/silent.ics"]) {
      const started = performance.now();
      // Act
      const problem = await probe(`${base}${path}`);
      // Assert
      expect(problem, path).toEqual({ problem: "the calendar could not be reached" });
      expect(performance.now() - started, path).toBeLessThan(1_000);
    }
  });

  it("has the sync's byte cap, and a deadline well inside the web function's timeout", () => {
    const web = functionConfig(readFunctionsConfig(), "web");
    expect(MAX_FEED_BYTES).toBe(DEFAULT_SYNC_LIMITS.maxBytes);
    // The save after the check (a seal, a write, a queued sync) needs the rest.
    expect(PROBE_TIMEOUT_MS).toBeLessThanOrEqual(web.timeoutMs / 2);
  });
});
