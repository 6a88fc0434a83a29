import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { TLSSocket } from "node:tls";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPinnedFetch } from "#lib/calendar/pinned-connection";

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/tls");
/**
 * A self-signed certificate for the name calendar.test AND the address 127.0.0.1, valid until
 * 2126, made with: openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes
 * -days 36500 -subj /CN=calendar.test -addext subjectAltName=DNS:calendar.test,IP:127.0.0.1
 * -addext basicConstraints=critical,CA:TRUE. Test-only; it protects nothing.
 */
const certificate = readFileSync(path.join(fixtures, "calendar-test.crt"), "utf8");
const privateKey = readFileSync(path.join(fixtures, "calendar-test.key"), "utf8");

const ICS = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n";

/** What a test server saw of each request. */
interface Seen {
  host: string | undefined;
  path: string | undefined;
  acceptEncoding: string | undefined;
  servername?: string | false | null;
}

type Route = (req: IncomingMessage, res: ServerResponse) => void;

const routes: Record<string, Route> = {
  "/a.ics": (_req, res) => res.end(ICS),
  "/gzip.ics": (_req, res) => {
    res.writeHead(200, { "content-encoding": "gzip" });
    res.end(gzipSync(ICS));
  },
  "/deflate.ics": (_req, res) => {
    res.writeHead(200, { "content-encoding": "deflate" });
    res.end(deflateSync(ICS));
  },
  "/br.ics": (_req, res) => {
    res.writeHead(200, { "content-encoding": "br" });
    res.end(brotliCompressSync(ICS));
  },
  "/moved": (_req, res) => {
    res.writeHead(302, { location: "http://elsewhere.test/a.ics" });
    res.end("moved");
  },
  "/same": (_req, res) => {
    res.writeHead(304, { etag: '"v1"' });
    res.end();
  },
  "/silent": () => undefined,
};

function listen(server: Server, host: string, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/** A server on `host` that records what it was asked and answers from `routes`. */
function recordingServer(seen: Seen[], secure = false): Server {
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    seen.push({
      host: req.headers.host,
      path: req.url,
      acceptEncoding: req.headers["accept-encoding"],
      ...(secure ? { servername: (req.socket as TLSSocket).servername } : {}),
    });
    const route = routes[new URL(req.url ?? "/", "http://x").pathname];
    if (route) route(req, res);
    else res.writeHead(404).end();
  };
  return secure
    ? createTlsServer({ cert: certificate, key: privateKey }, handle)
    : createServer(handle);
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

const init = () => ({ headers: { accept: "text/calendar" }, signal: AbortSignal.timeout(5_000) });

describe("a request pinned to the checked addresses", () => {
  const pinned = createPinnedFetch();
  /** On 127.0.0.2 (the pinned address) and 127.0.0.1 (where "localhost" resolves), one port. */
  const seenPinned: Seen[] = [];
  const seenResolved: Seen[] = [];
  const atPinned = recordingServer(seenPinned);
  const atResolved = recordingServer(seenResolved);
  let port = 0;

  beforeAll(async () => {
    port = await listen(atPinned, "127.0.0.2");
    await listen(atResolved, "127.0.0.1", port);
  });
  afterAll(async () => Promise.all([close(atPinned), close(atResolved)]));

  it("connects to the pinned address, not where the name resolves, and sends the name as Host", async () => {
    // Act: localhost resolves to 127.0.0.1; the check passed 127.0.0.2
    const res = await pinned(new URL(`http://localhost:${port}/a.ics?k=1`), ["127.0.0.2"], init());
    // Assess
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(ICS);
    expect(seenResolved).toEqual([]);
    expect(seenPinned.at(-1)).toMatchObject({ host: `localhost:${port}`, path: "/a.ics?k=1" });
  });

  it("reaches a name no resolver knows, since it never looks the name up", async () => {
    // Act
    const res = await pinned(
      new URL(`http://feeds.rebind.test:${port}/a.ics`),
      ["127.0.0.2"],
      init(),
    );
    // Assess
    expect(await res.text()).toBe(ICS);
    expect(seenPinned.at(-1)?.host).toBe(`feeds.rebind.test:${port}`);
  });

  it.each(["gzip", "deflate", "br"])("decodes a %s body as fetch does", async (coding) => {
    // Act
    const res = await pinned(
      new URL(`http://calendar.test:${port}/${coding}.ics`),
      ["127.0.0.2"],
      init(),
    );
    // Assess
    expect(await res.text()).toBe(ICS);
    expect(res.headers.get("content-encoding")).toBe(coding);
    expect(seenPinned.at(-1)?.acceptEncoding).toBe("gzip, deflate");
  });

  it("hands a redirect back instead of following it, and a 304 without a body", async () => {
    // Act
    const moved = await pinned(
      new URL(`http://calendar.test:${port}/moved`),
      ["127.0.0.2"],
      init(),
    );
    const same = await pinned(new URL(`http://calendar.test:${port}/same`), ["127.0.0.2"], init());
    // Assess
    expect(moved.status).toBe(302);
    expect(moved.headers.get("location")).toBe("http://elsewhere.test/a.ics");
    expect(same.status).toBe(304);
    expect(same.headers.get("etag")).toBe('"v1"');
    expect(same.body).toBeNull();
  });

  it("rejects with the signal's reason when the server never answers", async () => {
    // Prepare
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("deadline")), 100);
    // Act
    const started = performance.now();
    const answer = pinned(new URL(`http://calendar.test:${port}/silent`), ["127.0.0.2"], {
      headers: {},
      signal: controller.signal,
    });
    // Assess
    await expect(answer).rejects.toThrow("deadline");
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("rejects, as fetch does, when there is no checked address to connect to", async () => {
    await expect(pinned(new URL(`http://calendar.test:${port}/a.ics`), [], init())).rejects.toThrow(
      TypeError,
    );
  });
});

describe("a TLS request pinned to the checked address", () => {
  const pinned = createPinnedFetch({ ca: certificate });
  const seen: Seen[] = [];
  const server = recordingServer(seen, true);
  let port = 0;

  beforeAll(async () => {
    port = await listen(server, "127.0.0.1");
  });
  afterAll(async () => close(server));

  it("verifies the certificate against the host name and sends it as SNI", async () => {
    // Act
    const res = await pinned(new URL(`https://calendar.test:${port}/a.ics`), ["127.0.0.1"], init());
    // Assess
    expect(await res.text()).toBe(ICS);
    expect(seen.at(-1)).toMatchObject({
      host: `calendar.test:${port}`,
      servername: "calendar.test",
    });
  });

  it("refuses a certificate that names the pinned address but not the host name", async () => {
    // Act: the certificate is good for 127.0.0.1, which is where the connection goes
    const answer = pinned(new URL(`https://other.test:${port}/a.ics`), ["127.0.0.1"], init());
    // Assess
    await expect(answer).rejects.toMatchObject({
      cause: { code: "ERR_TLS_CERT_ALTNAME_INVALID" },
    });
  });

  it("refuses a certificate no trusted authority signed", async () => {
    // Act
    const answer = createPinnedFetch()(
      new URL(`https://calendar.test:${port}/a.ics`),
      ["127.0.0.1"],
      init(),
    );
    // Assess
    await expect(answer).rejects.toMatchObject({ cause: { code: "DEPTH_ZERO_SELF_SIGNED_CERT" } });
  });
});
