import type { IncomingMessage, ServerResponse } from "node:http";

/** What one request of the Google emulator carries, read whole. */
export interface GoogleRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
}

const MAX_BODY = 1_000_000;

/** Reads the whole body (cut at 1 MB: larger bodies are answered 413 by the caller). */
export function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on("end", () =>
      resolve(size > MAX_BODY ? undefined : Buffer.concat(chunks).toString("utf8")),
    );
    req.on("error", () => resolve(undefined));
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json; charset=UTF-8", ...headers });
  res.end(JSON.stringify(body));
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
  res.end(html);
}

export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location });
  res.end();
}

/** A JSON object body, or undefined when the body is empty, not JSON or not an object. */
export function jsonObject(body: string): Record<string, unknown> | undefined {
  if (body.trim() === "") return undefined;
  try {
    const doc: unknown = JSON.parse(body);
    return doc !== null && typeof doc === "object" && !Array.isArray(doc)
      ? (doc as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A form body (`application/x-www-form-urlencoded`), the way OAuth endpoints take it. */
export const formBody = (body: string): URLSearchParams => new URLSearchParams(body);

export function header(headers: IncomingMessage["headers"], name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}
