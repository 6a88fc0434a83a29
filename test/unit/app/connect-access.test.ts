import { describe, expect, it } from "vitest";
import { createConnectAccess, openRefreshToken, sealRefreshToken } from "#lib/app/accounts/access";
import { loadConfig } from "#lib/app/config";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { ManualClock } from "#lib/core/clock";
import type { SourceRecord } from "#lib/core/records";
import { MemoryStore } from "#lib/store/memory-store";
import { plainUser, statuslessContext } from "../../integration/app/statusless-context";
import { MINIMAL_APP_ENV } from "../../support/app-env";

/**
 * A connected account's access tokens, restated: a token is kept for the grant it came from
 * (the sealed refresh token), so a token of an account the person has since replaced is never
 * used for the account connected now; a provider's rotated refresh token is stored only in
 * place of the one it was refreshed from, never over a grant connected meanwhile.
 */
const T0 = Date.UTC(2026, 3, 1, 9);
const KEY = { team: "T0DEMO", user: "U001" };
const TOKEN_URL = "https://oauth.example/token";

/** A token endpoint that answers each refresh token with its own access token, rotating it. */
function tokenEndpoint() {
  const asked: string[] = [];
  const fetchFn = (async (_input: string | URL | Request, init?: RequestInit) => {
    const refresh = new URLSearchParams(String(init?.body ?? "")).get("refresh_token") ?? "";
    asked.push(refresh);
    return Response.json({
      access_token: `access-for-${refresh}`,
      refresh_token: `rotated-${refresh}`,
      expires_in: 3600,
    });
  }) as typeof fetch;
  return { fetch: fetchFn, asked };
}

async function setup() {
  const store = new MemoryStore();
  const ctx = statuslessContext({
    store,
    clock: new ManualClock(T0),
    tokens: new LocalTokenVault(Buffer.alloc(32, 5)),
  });
  const config = loadConfig({
    ...MINIMAL_APP_ENV,
    GOOGLE_CLIENT_ID: "client",
    GOOGLE_CLIENT_SECRET: "secret",
    GOOGLE_TOKEN_URL: TOKEN_URL,
  });
  const endpoint = tokenEndpoint();
  const access = createConnectAccess({
    ctx,
    config,
    fetch: endpoint.fetch,
    readParameter: async () => "",
  });
  const sourceWith = (refreshTokenSealed: string): SourceRecord => ({
    id: "google-1",
    kind: "google",
    url: "https://google.example/calendar/v3/calendars/primary",
    refreshTokenSealed,
  });
  const sealedA = await sealRefreshToken(ctx, KEY, "refresh-a");
  const sealedB = await sealRefreshToken(ctx, KEY, "refresh-b");
  return { ctx, store, access, endpoint, sourceWith, sealedA, sealedB };
}

describe("a connected account's access tokens", () => {
  it("are used only for the grant they came from", async () => {
    const { store, access, endpoint, sourceWith, sealedA, sealedB } = await setup();
    await store.putUser(plainUser(KEY, T0, [sourceWith(sealedB)]), undefined);
    access.remember(KEY, "google-1", {
      accessToken: "access-a",
      expiresInS: 3600,
      refreshTokenSealed: sealedA,
    });
    // Same grant: the kept token, no refresh.
    expect(await access.apiDeps(KEY, sourceWith(sealedA)).accessToken()).toBe("access-a");
    expect(endpoint.asked).toEqual([]);
    // The person connected account B to the same source: A's token must not read B's calendar.
    expect(await access.apiDeps(KEY, sourceWith(sealedB)).accessToken()).toBe(
      "access-for-refresh-b",
    );
    expect(endpoint.asked).toEqual(["refresh-b"]);
  });

  it("keep a refresh's token for the rotated grant it stored", async () => {
    const { ctx, store, access, endpoint, sourceWith, sealedA } = await setup();
    await store.putUser(plainUser(KEY, T0, [sourceWith(sealedA)]), undefined);
    expect(await access.apiDeps(KEY, sourceWith(sealedA)).accessToken()).toBe(
      "access-for-refresh-a",
    );
    const stored = (await store.getUser(KEY))?.sources[0]?.refreshTokenSealed ?? "";
    expect(await openRefreshToken(ctx, KEY, stored)).toBe("rotated-refresh-a");
    // The source as read after the rotation: the token just obtained serves it.
    expect(await access.apiDeps(KEY, sourceWith(stored)).accessToken()).toBe(
      "access-for-refresh-a",
    );
    expect(endpoint.asked).toEqual(["refresh-a"]);
  });

  it("never store a rotated refresh token over a grant connected meanwhile", async () => {
    const { ctx, store, access, sourceWith, sealedA, sealedB } = await setup();
    // A sync read the source with grant A; before its refresh came back, B was connected.
    await store.putUser(plainUser(KEY, T0, [sourceWith(sealedB)]), undefined);
    await access.apiDeps(KEY, sourceWith(sealedA)).accessToken();
    const stored = (await store.getUser(KEY))?.sources[0]?.refreshTokenSealed ?? "";
    expect(await openRefreshToken(ctx, KEY, stored)).toBe("refresh-b");
  });
});
