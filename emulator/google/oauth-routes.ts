import type { ServerResponse } from "node:http";
import type { CalendarModel, GoogleUser } from "./calendar-model";
import { OAuthTokenError } from "./errors";
import { formBody, type GoogleRequest, header, redirect, sendHtml, sendJson } from "./http";
import { type AuthRequest, type GoogleOAuth, KNOWN_SCOPES } from "./oauth";
import { consentPage, errorPage } from "./oauth-page";

/**
 * The HTTP side of the emulated Google sign-in: `GET /o/oauth2/v2/auth` (consent, or straight
 * approval for a configured test user), the consent form's `POST`, `POST /token` and
 * `POST /revoke`. Problems with the client or its redirect URI are shown on an error page, as
 * Google does, never sent to an unchecked address.
 */

type Checked =
  | { ok: true; req: AuthRequest }
  | { ok: false; status: number; code: string; detail: string };

const AUTH_PARAMS = [
  "client_id",
  "redirect_uri",
  "response_type",
  "scope",
  "state",
  "access_type",
  "prompt",
  "login_hint",
  "include_granted_scopes",
];

function check(oauth: GoogleOAuth, p: URLSearchParams): Checked {
  const clientId = p.get("client_id") ?? "";
  const client = oauth.clients.get(clientId);
  if (!client) {
    return {
      ok: false,
      status: 401,
      code: "invalid_client",
      detail: "The OAuth client was not found.",
    };
  }
  const redirectUri = p.get("redirect_uri") ?? "";
  if (!client.redirectUris.includes(redirectUri)) {
    return {
      ok: false,
      status: 400,
      code: "redirect_uri_mismatch",
      detail: `redirect_uri=${redirectUri} does not match a redirect URI registered for the client.`,
    };
  }
  if (p.get("response_type") !== "code") {
    return {
      ok: false,
      status: 400,
      code: "invalid_request",
      detail: "Required parameter is missing or invalid: response_type",
    };
  }
  const scopes = (p.get("scope") ?? "").split(/\s+/).filter((s) => s !== "");
  if (scopes.length === 0) {
    return {
      ok: false,
      status: 400,
      code: "invalid_request",
      detail: "Missing required parameter: scope",
    };
  }
  const unknown = scopes.find((s) => !KNOWN_SCOPES.has(s));
  if (unknown !== undefined) {
    return {
      ok: false,
      status: 400,
      code: "invalid_scope",
      detail: `Some requested scopes were invalid: ${unknown}`,
    };
  }
  const accessType = p.get("access_type") ?? "online";
  if (accessType !== "online" && accessType !== "offline") {
    return {
      ok: false,
      status: 400,
      code: "invalid_request",
      detail: `Invalid access_type: ${accessType}`,
    };
  }
  const prompt = (p.get("prompt") ?? "").split(/\s+/);
  const state = p.get("state");
  return {
    ok: true,
    req: {
      clientId,
      redirectUri,
      scopes,
      ...(state !== null ? { state } : {}),
      offline: accessType === "offline",
      promptConsent: prompt.includes("consent"),
    },
  };
}

function redirectWith(res: ServerResponse, req: AuthRequest, params: Record<string, string>) {
  const url = new URL(req.redirectUri);
  if (req.state !== undefined) url.searchParams.append("state", req.state);
  for (const [k, v] of Object.entries(params)) url.searchParams.append(k, v);
  redirect(res, url.toString());
}

export interface OAuthRouteDeps {
  oauth: GoogleOAuth;
  model: CalendarModel;
  /** The account that approves at once, without the consent page (a test user). */
  autoApprove(): GoogleUser | undefined;
}

function approve(res: ServerResponse, deps: OAuthRouteDeps, req: AuthRequest, user: GoogleUser) {
  const code = deps.oauth.issueCode(req, user);
  redirectWith(res, req, { code, scope: req.scopes.join(" ") });
}

export function authorizeGet(r: GoogleRequest, res: ServerResponse, deps: OAuthRouteDeps) {
  const c = check(deps.oauth, r.query);
  if (!c.ok) return sendHtml(res, c.status, errorPage(c.status, c.code, c.detail));
  const auto = deps.autoApprove();
  if (auto) return approve(res, deps, c.req, auto);
  const hidden: Record<string, string> = {};
  for (const k of AUTH_PARAMS) {
    const v = r.query.get(k);
    if (v !== null) hidden[k] = v;
  }
  const users = [...deps.model.users.values()].map((u) => ({
    id: u.id,
    email: u.email,
    name: u.name,
  }));
  sendHtml(
    res,
    200,
    consentPage({ clientId: c.req.clientId, scopes: c.req.scopes, users, hidden }),
  );
}

/** The consent form: `decision=allow|cancel` and `as` (the chosen account's id). */
export function authorizePost(r: GoogleRequest, res: ServerResponse, deps: OAuthRouteDeps) {
  const form = formBody(r.body);
  const c = check(deps.oauth, form);
  if (!c.ok) return sendHtml(res, c.status, errorPage(c.status, c.code, c.detail));
  const decision = form.get("decision");
  if (decision === "cancel") return redirectWith(res, c.req, { error: "access_denied" });
  const user = deps.model.users.get(form.get("as") ?? "");
  if (decision !== "allow" || !user) {
    return sendHtml(
      res,
      400,
      errorPage(400, "invalid_request", "Choose an account, then Allow or Cancel."),
    );
  }
  approve(res, deps, c.req, user);
}

function basicCredentials(r: GoogleRequest): { id: string; secret: string } | undefined {
  const auth = header(r.headers, "authorization");
  if (!auth?.toLowerCase().startsWith("basic ")) return undefined;
  const text = Buffer.from(auth.slice(6).trim(), "base64").toString("utf8");
  const colon = text.indexOf(":");
  if (colon < 0) return undefined;
  return {
    id: decodeURIComponent(text.slice(0, colon)),
    secret: decodeURIComponent(text.slice(colon + 1)),
  };
}

const NO_STORE = {
  "cache-control": "no-cache, no-store, max-age=0, must-revalidate",
  pragma: "no-cache",
};

export function tokenPost(r: GoogleRequest, res: ServerResponse, deps: OAuthRouteDeps) {
  try {
    sendJson(res, 200, deps.oauth.token(formBody(r.body), basicCredentials(r)), NO_STORE);
  } catch (e) {
    if (e instanceof OAuthTokenError) return sendJson(res, e.status, e.body, NO_STORE);
    throw e;
  }
}

/** POST /revoke with `token` (form or query). */
export function revokePost(r: GoogleRequest, res: ServerResponse, deps: OAuthRouteDeps) {
  const token = formBody(r.body).get("token") ?? r.query.get("token") ?? "";
  if (deps.oauth.revoke(token)) return sendJson(res, 200, {});
  sendJson(res, 400, { error: "invalid_token", error_description: "Token expired or revoked" });
}
