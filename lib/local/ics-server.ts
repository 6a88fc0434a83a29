import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { isAddressInUse, PortInUseError } from "#devstack/errors";
import type { Clock } from "#lib/core/clock";
import { HOST_NOT_LOOPBACK, isLoopbackHost } from "#lib/http/loopback-host";

interface Feed {
  body: string;
  etag: string;
  lastModified: number;
}

export interface IcsServer {
  url: string;
  /** The feed's public address. */
  feedUrl(path: string): string;
  setFeed(path: string, ics: string): void;
  /** GETs served per path (including 304s), for tests and the live log. */
  fetches(path: string): number;
  close(): Promise<void>;
}

const MAX_PUT_BYTES = 1024 * 1024;

const etagOf = (body: string) =>
  `"${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`;

const readText = (req: IncomingMessage): Promise<string | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_PUT_BYTES) chunks.push(c);
    });
    req.on("end", () =>
      resolve(size > MAX_PUT_BYTES ? undefined : Buffer.concat(chunks).toString("utf8")),
    );
    req.on("error", reject);
  });

/**
 * Serves ICS feeds on loopback as calendar providers do (ETag, Last-Modified, 304s). A PUT
 * replaces a feed, so tests and the demo can move, cancel or add events over HTTP; a DELETE
 * takes its address away (404s, as a calendar unshared or deleted).
 */
export async function startIcsServer(options: {
  clock: Clock;
  port?: number;
  host?: string;
  feeds?: Record<string, string>;
}): Promise<IcsServer> {
  const feeds = new Map<string, Feed>();
  const fetchCounts = new Map<string, number>();
  const setFeed = (path: string, body: string) => {
    feeds.set(path, { body, etag: etagOf(body), lastModified: options.clock.now() });
  };
  for (const [path, body] of Object.entries(options.feeds ?? {})) setFeed(path, body);

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method === "PUT") {
      // Replacing a feed is for this machine only (DNS rebinding); reading one is for any Host.
      if (!isLoopbackHost(req.headers.host)) {
        res.writeHead(403, {
          "content-type": "application/json",
          "x-content-type-options": "nosniff",
        });
        res.end(JSON.stringify(HOST_NOT_LOOPBACK));
        return;
      }
      readText(req).then(
        (body) => {
          if (body === undefined || !body.includes("BEGIN:VCALENDAR")) {
            res.writeHead(400, { "content-type": "text/plain" });
            res.end(body === undefined ? "feed too large\n" : "body is not an ICS calendar\n");
            return;
          }
          setFeed(path, body);
          res.writeHead(204);
          res.end();
        },
        () => {
          res.writeHead(400);
          res.end();
        },
      );
      return;
    }
    if (req.method === "DELETE") {
      // The calendar's address is gone: its reads answer 404 until a PUT brings it back.
      res.writeHead(feeds.delete(path) ? 204 : 404);
      res.end();
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD, PUT, DELETE" });
      res.end();
      return;
    }
    const feed = feeds.get(path);
    fetchCounts.set(path, (fetchCounts.get(path) ?? 0) + 1);
    if (!feed) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("no such calendar\n");
      return;
    }
    const headers = {
      etag: feed.etag,
      "last-modified": new Date(feed.lastModified).toUTCString(),
      "cache-control": "no-cache",
    };
    if (req.headers["if-none-match"] === feed.etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, "content-type": "text/calendar; charset=utf-8" });
    res.end(req.method === "HEAD" ? undefined : feed.body);
  });

  const port = options.port ?? 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: unknown) =>
      reject(
        isAddressInUse(error)
          ? new PortInUseError(port, "calendar feeds", { cause: error })
          : error,
      ),
    );
    server.listen(port, options.host ?? "127.0.0.1", () => resolve());
  });
  const { address, port: bound } = server.address() as AddressInfo;
  const url = `http://${address}:${bound}`;
  return {
    url,
    feedUrl: (path) => `${url}${path.startsWith("/") ? path : `/${path}`}`,
    setFeed,
    fetches: (path) => fetchCounts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
