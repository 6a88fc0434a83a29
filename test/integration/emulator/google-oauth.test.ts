import { describe, expect, it } from "vitest";
import {
  api,
  authorize,
  CLIENT_ID,
  connect,
  READ_SCOPE,
  REDIRECT,
  setup,
  token,
} from "./google-harness";

// Google OAuth 2.0 for web server applications, over real HTTP. Expectations restate Google's
// public documentation: the redirect carries `code` and `state`; a denial `error=access_denied`;
// the token endpoint's answers and `invalid_grant` body; access tokens of 3599 s.

describe("Google emulator: OAuth", () => {
  it("auto-approves the test user: a redirect with code, state and scope", async () => {
    const { emu } = await setup();
    const r = await authorize(emu);
    expect(r.status).toBe(302);
    expect(r.location?.origin + (r.location?.pathname ?? "")).toBe(REDIRECT);
    expect(r.location?.searchParams.get("state")).toBe("st-123");
    expect(r.location?.searchParams.get("code")).toMatch(/.{20,}/);
    expect(r.location?.searchParams.get("scope")).toBe(READ_SCOPE);
  });

  it("shows a consent page; Allow redirects with a code, Cancel with access_denied", async () => {
    const { emu } = await setup({ autoApprove: false });
    const page = await authorize(emu);
    expect(page.status).toBe(200);
    expect(page.text).toContain("ada@example.com");
    const hidden = [...page.text.matchAll(/type="hidden" name="([^"]+)" value="([^"]*)"/g)].map(
      (m) => [m[1] ?? "", (m[2] ?? "").replace(/&amp;/g, "&")] as [string, string],
    );
    const userId = /<option value="([^"]+)"/.exec(page.text)?.[1] ?? "";
    const post = (decision: string) =>
      fetch(emu.authUrl, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams([...hidden, ["as", userId], ["decision", decision]]),
      });
    const allowed = new URL((await post("allow")).headers.get("location") ?? "");
    expect(allowed.searchParams.get("code")).toBeTruthy();
    expect(allowed.searchParams.get("state")).toBe("st-123");
    const denied = new URL((await post("cancel")).headers.get("location") ?? "");
    expect(denied.searchParams.get("error")).toBe("access_denied");
    expect(denied.searchParams.get("state")).toBe("st-123");
    expect(denied.searchParams.get("code")).toBeNull();
  });

  it("refuses an unknown client or an unregistered redirect URI on a page, without redirecting", async () => {
    const { emu } = await setup();
    const badClient = await authorize(emu, { client_id: "nobody" });
    expect(badClient.status).toBe(401);
    expect(badClient.location).toBeUndefined();
    expect(badClient.text).toContain("invalid_client");
    const badRedirect = await authorize(emu, { redirect_uri: "https://evil.example/cb" });
    expect(badRedirect.status).toBe(400);
    expect(badRedirect.location).toBeUndefined();
    expect(badRedirect.text).toContain("redirect_uri_mismatch");
  });

  it("authorization_code grant: access token (3599 s, Bearer), refresh token with offline + consent", async () => {
    const { emu } = await setup();
    const code = (await authorize(emu)).location?.searchParams.get("code") ?? "";
    const r = await token(emu, { grant_type: "authorization_code", code, redirect_uri: REDIRECT });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ expires_in: 3599, token_type: "Bearer", scope: READ_SCOPE });
    expect(typeof r.body.access_token).toBe("string");
    expect(typeof r.body.refresh_token).toBe("string");
    // A code is spent once.
    const again = await token(emu, {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
    });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
  });

  it("online access gives no refresh token; a later offline consent without prompt=consent neither", async () => {
    const { emu } = await setup();
    const online = (await authorize(emu, { access_type: "online", prompt: "" })).location;
    const r1 = await token(emu, {
      grant_type: "authorization_code",
      code: online?.searchParams.get("code") ?? "",
      redirect_uri: REDIRECT,
    });
    expect(r1.body.refresh_token).toBeUndefined();
    // The first offline consent gives one; a second one without prompt=consent does not.
    const first = (await authorize(emu, { prompt: "" })).location;
    const r2 = await token(emu, {
      grant_type: "authorization_code",
      code: first?.searchParams.get("code") ?? "",
      redirect_uri: REDIRECT,
    });
    expect(typeof r2.body.refresh_token).toBe("string");
    const second = (await authorize(emu, { prompt: "" })).location;
    const r3 = await token(emu, {
      grant_type: "authorization_code",
      code: second?.searchParams.get("code") ?? "",
      redirect_uri: REDIRECT,
    });
    expect(r3.body.refresh_token).toBeUndefined();
  });

  it("refuses a wrong secret, a redirect_uri differing from the authorize step, an unknown grant type", async () => {
    const { emu } = await setup();
    const code = (await authorize(emu)).location?.searchParams.get("code") ?? "";
    const badSecret = await token(emu, {
      client_secret: "wrong",
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
    });
    expect(badSecret.status).toBe(401);
    expect(badSecret.body.error).toBe("invalid_client");
    const badRedirect = await token(emu, {
      grant_type: "authorization_code",
      code,
      redirect_uri: "https://app.example/other",
    });
    expect(badRedirect.status).toBe(400);
    expect(badRedirect.body.error).toBe("redirect_uri_mismatch");
    const badGrant = await token(emu, { grant_type: "password" });
    expect(badGrant.status).toBe(400);
    expect(badGrant.body.error).toBe("unsupported_grant_type");
  });

  it("a code is dead after 10 minutes", async () => {
    const { emu, clock } = await setup();
    const code = (await authorize(emu)).location?.searchParams.get("code") ?? "";
    clock.advance(10 * 60_000);
    const r = await token(emu, { grant_type: "authorization_code", code, redirect_uri: REDIRECT });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid_grant");
  });

  it("refresh_token grant: a new access token, no new refresh token; the old access token expires after 3599 s", async () => {
    const { emu, clock } = await setup();
    const { accessToken, refreshToken } = await connect(emu);
    expect((await api(emu, accessToken, "/calendars/primary/events")).status).toBe(200);
    clock.advance(3599_000);
    const expired = await api(emu, accessToken, "/calendars/primary/events");
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({
      error: {
        errors: [
          {
            domain: "global",
            reason: "authError",
            message: "Invalid Credentials",
            locationType: "header",
            location: "Authorization",
          },
        ],
        code: 401,
        message: "Invalid Credentials",
      },
    });
    const r = await token(emu, { grant_type: "refresh_token", refresh_token: refreshToken });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ expires_in: 3599, token_type: "Bearer", scope: READ_SCOPE });
    expect(r.body.refresh_token).toBeUndefined();
    const fresh = String(r.body.access_token);
    expect((await api(emu, fresh, "/calendars/primary/events")).status).toBe(200);
  });

  it("invalid_grant fault: the refresh token answers Google's invalid_grant body, access tokens 401", async () => {
    const { emu } = await setup();
    const { accessToken, refreshToken } = await connect(emu);
    emu.control.faults({ invalidGrant: { user: "ada@example.com" } });
    const r = await token(emu, { grant_type: "refresh_token", refresh_token: refreshToken });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error: "invalid_grant",
      error_description: "Token has been expired or revoked.",
    });
    expect((await api(emu, accessToken, "/calendars/primary/events")).status).toBe(401);
  });

  it("expireAccessTokens fault: 401 until refreshed, then the refresh works", async () => {
    const { emu } = await setup();
    const { accessToken, refreshToken } = await connect(emu);
    emu.control.faults({ expireAccessTokens: {} });
    expect((await api(emu, accessToken, "/calendars/primary/events")).status).toBe(401);
    const r = await token(emu, { grant_type: "refresh_token", refresh_token: refreshToken });
    expect(r.status).toBe(200);
  });

  it("revocation ends the grant: the refresh token then answers invalid_grant", async () => {
    const { emu } = await setup();
    const { refreshToken } = await connect(emu);
    const res = await fetch(emu.revokeUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: refreshToken }),
    });
    expect(res.status).toBe(200);
    const r = await token(emu, { grant_type: "refresh_token", refresh_token: refreshToken });
    expect(r.body.error).toBe("invalid_grant");
  });

  it("without a token the API answers 401 Login Required; a client id is not a token", async () => {
    const { emu } = await setup();
    const none = await api(emu, undefined, "/calendars/primary/events");
    expect(none.status).toBe(401);
    expect((none.body.error as { errors: { reason: string }[] }).errors[0]?.reason).toBe(
      "required",
    );
    const bogus = await api(emu, CLIENT_ID, "/calendars/primary/events");
    expect(bogus.status).toBe(401);
  });
});
