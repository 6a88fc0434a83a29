/** HTTP plumbing shared by the Microsoft emulator's endpoints: bodies, answers, error shapes. */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

const MAX_BODY = 1_000_000;

/** The whole body, or undefined when it is too large, cut off or slower than `timeoutMs`. */
export function readBody(req: IncomingMessage, timeoutMs = 5000): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (v: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(v);
    };
    const timer = setTimeout(() => settle(undefined), timeoutMs);
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on("end", () =>
      settle(size > MAX_BODY ? undefined : Buffer.concat(chunks).toString("utf8")),
    );
    req.on("error", () => settle(undefined));
  });
}

export interface Answer {
  status: number;
  body?: unknown;
  /** A text or HTML body, sent as is. */
  text?: string;
  headers?: Record<string, string>;
}

export function send(res: ServerResponse, answer: Answer): void {
  if (res.headersSent) return;
  if (answer.text !== undefined) {
    res.writeHead(answer.status, {
      "content-type": "text/plain; charset=utf-8",
      ...answer.headers,
    });
    res.end(answer.text);
    return;
  }
  if (answer.body === undefined) {
    res.writeHead(answer.status, answer.headers ?? {});
    res.end();
    return;
  }
  res.writeHead(answer.status, {
    "content-type": "application/json; charset=utf-8",
    ...answer.headers,
  });
  res.end(JSON.stringify(answer.body));
}

/** ISO instant without milliseconds, as Graph's `innerError.date` shows it. */
const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "");

/** Graph's error body: `{error: {code, message, innerError: {date, request-id, client-request-id}}}`. */
export function graphError(
  status: number,
  code: string,
  message: string,
  now: number,
  headers?: Record<string, string>,
): Answer {
  const requestId = randomUUID();
  return {
    status,
    body: {
      error: {
        code,
        message,
        innerError: {
          date: isoSeconds(now),
          "request-id": requestId,
          "client-request-id": requestId,
        },
      },
    },
    headers: { "request-id": requestId, ...headers },
  };
}

/**
 * The identity platform's error body: `{error, error_description, error_codes, timestamp,
 * trace_id, correlation_id, error_uri}`, the description starting `AADSTS<code>:`.
 */
export function identityError(
  status: number,
  error: string,
  aadsts: number,
  message: string,
  now: number,
): Answer {
  const traceId = randomUUID();
  const correlationId = randomUUID();
  const timestamp = `${new Date(now)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d{3}Z$/, "")}Z`;
  return {
    status,
    body: {
      error,
      error_description: `AADSTS${aadsts}: ${message} Trace ID: ${traceId} Correlation ID: ${correlationId} Timestamp: ${timestamp}`,
      error_codes: [aadsts],
      timestamp,
      trace_id: traceId,
      correlation_id: correlationId,
      error_uri: `https://login.microsoftonline.com/error?code=${aadsts}`,
    },
    headers: { "cache-control": "no-store", pragma: "no-cache" },
  };
}

export const redirect = (location: string): Answer => ({ status: 302, headers: { location } });

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);

export const htmlPage = (status: number, title: string, body: string): Answer => ({
  status,
  text: `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n<body>${body}</body></html>`,
  headers: { "content-type": "text/html; charset=utf-8" },
});

/** Graph's instants: `2026-11-24T09:00:00.0000000` (seven fraction digits, no zone letter). */
export const graphDateTime = (ms: number): string =>
  new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$10000");

/** The subscription resource's instants: `2026-11-24T09:00:00.0000000Z`. */
export const graphInstant = (ms: number): string => `${graphDateTime(ms)}Z`;
