import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { pipeline, Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/** What one GET of a feed sends. */
export interface PinnedRequestInit {
  headers: Record<string, string>;
  signal: AbortSignal;
}

/**
 * One GET of `url` over a connection to one of `addresses` only: the addresses the caller
 * checked. The name is never resolved again, so a name that answers a public address to the
 * check and a private one to the connection (DNS rebinding) reaches nothing private. Redirects
 * are not followed; the answer is a `Response` as `fetch` gives it (body decoded), and a failure
 * to connect rejects, as `fetch` does.
 */
export type PinnedFetch = (
  url: URL,
  addresses: readonly string[],
  init: PinnedRequestInit,
) => Promise<Response>;

/** Trust for TLS beyond the system's roots: tests serve a certificate of their own CA. */
export interface PinnedFetchOptions {
  ca?: string;
}

/**
 * What Node's `fetch` sends unless told otherwise, so a feed server sees the same request as
 * before the connection was pinned. The encodings offered are decoded as `fetch` decodes them
 * (brotli too, should a server send it unasked).
 */
const FETCH_DEFAULT_HEADERS = { "user-agent": "node", "accept-language": "*" };
const ACCEPT_ENCODING = "gzip, deflate";

/** Answers every lookup with the pinned addresses (each one already checked). */
function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: isIP(address) }));
  return (_hostname, options, callback) => {
    const [first] = entries;
    if (options.all) callback(null, entries);
    else if (first) callback(null, first.address, first.family);
    else callback(new Error("no checked address to connect to"), "", 0);
  };
}

/** The body as the caller reads it: decoded from the content codings fetch decodes. */
function decodedBody(message: IncomingMessage): Readable {
  const codings = (message.headers["content-encoding"] ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity")
    .reverse();
  let body: Readable = message;
  for (const coding of codings) {
    const decoder =
      coding === "gzip" || coding === "x-gzip"
        ? createGunzip()
        : coding === "deflate"
          ? createInflate()
          : coding === "br"
            ? createBrotliDecompress()
            : undefined;
    // An unknown coding is handed on as it came, as fetch does.
    if (decoder === undefined) return body;
    // pipeline destroys both on an error or an early cancel, so the socket is let go too.
    body = pipeline(body, decoder, () => undefined);
  }
  return body;
}

/** Statuses whose response has no body (the `Response` constructor refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

function toResponse(message: IncomingMessage): Response {
  const status = message.statusCode ?? 0;
  if (status < 200 || status > 599) {
    message.destroy();
    throw new TypeError(`fetch failed: the server answered status ${status}`);
  }
  const headers = new Headers();
  const raw = message.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i] ?? "", raw[i + 1] ?? "");
    } catch {
      // A header the Fetch standard refuses is dropped, not fatal: none of ours needs it.
    }
  }
  if (NULL_BODY.has(status)) {
    message.resume();
    return new Response(null, { status, headers });
  }
  const body = Readable.toWeb(decodedBody(message)) as ReadableStream<Uint8Array>;
  return new Response(body, { status, headers });
}

/**
 * The production `PinnedFetch`, over node:http and node:https. TLS still verifies the server's
 * certificate against the URL's host name (sent as SNI), not against the pinned address. Each
 * request has a connection of its own (no pool), closed with the response.
 */
export function createPinnedFetch(options: PinnedFetchOptions = {}): PinnedFetch {
  return (url, addresses, init) =>
    new Promise<Response>((resolve, reject) => {
      const secure = url.protocol === "https:";
      const hostname = url.hostname.replace(/^\[|\]$/g, "");
      const request: RequestOptions = {
        method: "GET",
        host: hostname,
        port: url.port === "" ? (secure ? 443 : 80) : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers: { ...FETCH_DEFAULT_HEADERS, ...init.headers, "accept-encoding": ACCEPT_ENCODING },
        signal: init.signal,
        lookup: pinnedLookup(addresses),
        agent: false,
      };
      const onResponse = (message: IncomingMessage) => {
        try {
          resolve(toResponse(message));
        } catch (error: unknown) {
          reject(error);
        }
      };
      const outgoing = secure
        ? httpsRequest(
            {
              ...request,
              // An IP-literal host sends no SNI; its certificate must name the IP address.
              ...(isIP(hostname) === 0 ? { servername: hostname } : {}),
              ...(options.ca !== undefined ? { ca: options.ca } : {}),
            },
            onResponse,
          )
        : httpRequest(request, onResponse);
      outgoing.on("error", (cause: Error) =>
        reject(init.signal.aborted ? init.signal.reason : new TypeError("fetch failed", { cause })),
      );
      outgoing.end();
    });
}
