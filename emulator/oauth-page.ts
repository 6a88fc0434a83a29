/**
 * The HTML side of the emulator's OAuth extension: the consent page a person sees at
 * `/oauth/v2/authorize`, the error page, redirects, and reading the consent form's body.
 * Every value that reaches a page is escaped, since all of it (app name, state, scopes, user
 * names) comes from a workspace file or a query string.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);

/** Where the consent form posts back to. */
export const AUTHORIZE_PATH = "/oauth/v2/authorize";

export interface ConsentPage {
  appName: string;
  teamName: string;
  scopes: string[];
  /** The people one may consent as: the workspace's members that are not bots. */
  users: { id: string; name: string; realName: string }[];
  /** The authorization request, carried through the form unchanged. */
  hidden: Record<string, string>;
}

const page = (title: string, body: string): string =>
  [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title></head>`,
    `<body>${body}</body></html>`,
  ].join("\n");

export function consentPage(c: ConsentPage): string {
  const hidden = Object.entries(c.hidden)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join("\n");
  const options = c.users
    .map(
      (u) =>
        `<option value="${escapeHtml(u.id)}">${escapeHtml(u.realName)} (@${escapeHtml(u.name)}, ${escapeHtml(u.id)})</option>`,
    )
    .join("\n");
  const scopes = c.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join("\n");
  return page(
    `${c.appName} is requesting permission`,
    [
      `<h1>${escapeHtml(c.appName)} is requesting permission to access the ${escapeHtml(c.teamName)} workspace</h1>`,
      `<p>It will be able to, on your behalf:</p><ul>${scopes}</ul>`,
      `<form method="post" action="${AUTHORIZE_PATH}">`,
      hidden,
      `<label for="as">You are</label> <select id="as" name="as">${options}</select>`,
      '<button type="submit" name="decision" value="allow">Allow</button>',
      '<button type="submit" name="decision" value="cancel">Cancel</button>',
      "</form>",
    ].join("\n"),
  );
}

export function errorPage(code: string, message: string): string {
  return page(
    `OAuth error: ${code}`,
    `<h1>Something went wrong when authorizing this app</h1>\n<p><code>${escapeHtml(code)}</code>: ${escapeHtml(message)}</p>`,
  );
}

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy": "default-src 'none'",
  "x-frame-options": "DENY",
};

export function sendHtml(
  res: ServerResponse,
  status: number,
  html: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...PAGE_HEADERS, ...headers });
  res.end(html);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(body));
}

export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location, "cache-control": "no-store" });
  res.end();
}

const MAX_FORM_BYTES = 64 * 1024;

export type BodyText = { ok: true; text: string } | { ok: false; reason: string };

/** Reads a small body (a consent form, a control request): whole, within `timeoutMs`. */
export function readSmallBody(req: IncomingMessage, timeoutMs: number): Promise<BodyText> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (r: BodyText) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(
      () => settle({ ok: false, reason: "the body did not arrive in time" }),
      timeoutMs,
    );
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_FORM_BYTES) chunks.push(c);
    });
    req.on("end", () =>
      settle(
        size > MAX_FORM_BYTES
          ? { ok: false, reason: `the body is over ${MAX_FORM_BYTES} bytes` }
          : { ok: true, text: Buffer.concat(chunks).toString("utf8") },
      ),
    );
    req.on("error", () => settle({ ok: false, reason: "the body was cut off" }));
    req.on("close", () => settle({ ok: false, reason: "the body was cut off" }));
  });
}
