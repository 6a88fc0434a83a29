import { escapeHtml } from "../oauth-page";

/**
 * The pages of the emulated Google sign-in: the consent screen (choose an account, then Allow
 * or Cancel) and the error page Google shows instead of redirecting ("Error 400:
 * redirect_uri_mismatch"). Every value is escaped: all of it comes from a query string.
 */

/** Where the consent form posts back to. */
export const AUTH_PATH = "/o/oauth2/v2/auth";

const page = (title: string, body: string): string =>
  [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title></head>`,
    `<body>${body}</body></html>`,
  ].join("\n");

export function consentPage(c: {
  clientId: string;
  scopes: string[];
  users: { id: string; email: string; name: string }[];
  hidden: Record<string, string>;
}): string {
  const hidden = Object.entries(c.hidden)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join("\n");
  const options = c.users
    .map(
      (u) =>
        `<option value="${escapeHtml(u.id)}">${escapeHtml(u.name)} (${escapeHtml(u.email)})</option>`,
    )
    .join("\n");
  const scopes = c.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join("\n");
  return page(
    "Sign in - Google Accounts (emulated)",
    [
      `<h1>${escapeHtml(c.clientId)} wants to access your Google Account</h1>`,
      `<p>This will allow it to:</p><ul>${scopes}</ul>`,
      `<form method="post" action="${AUTH_PATH}">`,
      hidden,
      `<label for="as">Choose an account</label> <select id="as" name="as">${options}</select>`,
      '<button type="submit" name="decision" value="allow">Allow</button>',
      '<button type="submit" name="decision" value="cancel">Cancel</button>',
      "</form>",
    ].join("\n"),
  );
}

export function errorPage(status: number, code: string, detail: string): string {
  return page(
    `Error ${status}: ${code}`,
    `<h1>Access blocked: authorization error</h1><p>${escapeHtml(detail)}</p><p><strong>Error ${status}: ${escapeHtml(code)}</strong></p>`,
  );
}
