import * as z from "zod";
import { ProviderError } from "./errors";
import type { CalendarOAuth } from "./provider";

/**
 * Google's OAuth 2.0 authorization-code client for a web server application: consent asks for
 * read-only events with offline access (`access_type=offline`, and `prompt=consent` so a
 * reconnect gets a refresh token again), and the token endpoint exchanges the code, or later the
 * refresh token, for an access token. A dead refresh token answers 400 `invalid_grant`.
 */
export const GOOGLE_SCOPE = "https://www.googleapis.com/auth/calendar.events.readonly";

export const googleOAuth: CalendarOAuth = {
  authorizeUrl({ clientId, redirectUri, state, authUrl }) {
    const url = new URL(authUrl);
    url.searchParams.set("client_id", clientId);
    url.searchParams.set("redirect_uri", redirectUri);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("scope", GOOGLE_SCOPE);
    url.searchParams.set("access_type", "offline");
    url.searchParams.set("prompt", "consent");
    url.searchParams.set("include_granted_scopes", "true");
    url.searchParams.set("state", state);
    return url.toString();
  },
  exchange: (p, fetchFn) => exchangeAtTokenEndpoint(p, fetchFn),
};

let tokenAnswerSchema:
  | z.ZodObject<{
      access_token: z.ZodString;
      refresh_token: z.ZodOptional<z.ZodString>;
      expires_in: z.ZodCoercedNumber;
    }>
  | undefined;
const tokenAnswer = () =>
  (tokenAnswerSchema ??= z.object({
    access_token: z.string().min(1),
    refresh_token: z.string().optional(),
    expires_in: z.coerce.number(),
  }));

/**
 * RFC 6749 §4.1.3 / §6 at `tokenUrl`, client credentials in the form body (Google's and
 * Microsoft's documented way). Error answers (§5.2) carry `error`: `invalid_grant` is a dead
 * code or refresh token; a 429 or 5xx is worth a retry.
 */
export async function exchangeAtTokenEndpoint(
  p: Parameters<CalendarOAuth["exchange"]>[0],
  fetchFn: typeof fetch,
  extra: Record<string, string> = {},
): Promise<{ accessToken: string; refreshToken?: string; expiresInS: number }> {
  const form = new URLSearchParams({
    client_id: p.clientId,
    client_secret: p.clientSecret,
    ...extra,
    ...("code" in p.grant
      ? {
          grant_type: "authorization_code",
          code: p.grant.code,
          redirect_uri: p.grant.redirectUri,
        }
      : { grant_type: "refresh_token", refresh_token: p.grant.refreshToken }),
  });
  const res = await fetchFn(p.tokenUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: form.toString(),
  });
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const error =
      typeof body === "object" && body !== null && "error" in body
        ? String((body as { error: unknown }).error)
        : "";
    if (error === "invalid_grant") {
      throw new ProviderError("invalid_grant", "token endpoint: invalid_grant", {
        status: res.status,
      });
    }
    const retryAfter = Number(res.headers.get("retry-after"));
    throw new ProviderError(
      res.status === 429 ? "rate_limited" : "upstream_status",
      `token endpoint: ${res.status} ${error}`,
      {
        status: res.status,
        ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterS: retryAfter } : {}),
      },
    );
  }
  const parsed = tokenAnswer().safeParse(body);
  if (!parsed.success) {
    throw new ProviderError("upstream_status", "token endpoint: the answer has no access_token");
  }
  return {
    accessToken: parsed.data.access_token,
    ...(parsed.data.refresh_token !== undefined ? { refreshToken: parsed.data.refresh_token } : {}),
    expiresInS: parsed.data.expires_in,
  };
}
