import { describe, expect, it } from "vitest";
import { ProviderError } from "#lib/calendar/providers/errors";
import { GOOGLE_SCOPE, googleOAuth } from "#lib/calendar/providers/google-oauth";

/** Google's OAuth 2.0 for web server applications, restated from its documentation. */
describe("googleOAuth", () => {
  it("asks for read-only events, offline access and consent, with our state", () => {
    const url = new URL(
      googleOAuth.authorizeUrl({
        clientId: "cid",
        redirectUri: "https://sp.test/connect/google/callback",
        state: "st",
        authUrl: "https://accounts.test/o/oauth2/v2/auth",
      }),
    );
    expect(url.origin + url.pathname).toBe("https://accounts.test/o/oauth2/v2/auth");
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({
      client_id: "cid",
      redirect_uri: "https://sp.test/connect/google/callback",
      response_type: "code",
      access_type: "offline",
      prompt: "consent",
      state: "st",
    });
    expect(q.scope).toBe("https://www.googleapis.com/auth/calendar.events.readonly");
    expect(GOOGLE_SCOPE).toContain("readonly");
  });

  it("exchanges a code with a form post and reads the tokens", async () => {
    let sent: URLSearchParams | undefined;
    const fetchFn = (async (_url: string | URL | Request, init?: RequestInit) => {
      sent = new URLSearchParams(String(init?.body));
      return Response.json({ access_token: "at", refresh_token: "rt", expires_in: 3599 });
    }) as typeof fetch;
    const grant = await googleOAuth.exchange(
      {
        grant: { code: "c0de", redirectUri: "https://sp.test/cb" },
        clientId: "cid",
        clientSecret: "sec",
        tokenUrl: "https://oauth.test/token",
      },
      fetchFn,
    );
    expect(Object.fromEntries(sent ?? [])).toEqual({
      client_id: "cid",
      client_secret: "sec",
      grant_type: "authorization_code",
      code: "c0de",
      redirect_uri: "https://sp.test/cb",
    });
    expect(grant).toEqual({ accessToken: "at", refreshToken: "rt", expiresInS: 3599 });
  });

  it("a dead refresh token (400 invalid_grant) is ProviderError invalid_grant", async () => {
    const fetchFn = (async () =>
      Response.json(
        { error: "invalid_grant", error_description: "Token has been expired or revoked." },
        { status: 400 },
      )) as typeof fetch;
    const error = await googleOAuth
      .exchange(
        {
          grant: { refreshToken: "rt" },
          clientId: "c",
          clientSecret: "s",
          tokenUrl: "https://o.test/t",
        },
        fetchFn,
      )
      .catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.code).toBe("invalid_grant");
  });
});
