/**
 * The state behind the emulator's OAuth extension: pending authorization codes, the grants (one
 * person's consent to one app) with the tokens issued under them, refresh tokens, and revocation
 * with the `tokens_revoked` and `app_uninstalled` events it sends.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "#lib/core/clock";
import { type EventDispatcher, eventEnvelope, subscribedTarget } from "./events";
import type { EmulatorModel } from "./model";
import type { SavedCode, SavedGrant } from "./snapshot";
import type { WorkspaceToken } from "./workspace";

/** The platform's authorization codes expire after 10 minutes. */
export const CODE_LIFETIME_MS = 10 * 60_000;
/** With token rotation on, an access token lives 12 hours (`expires_in`). */
export const ROTATING_TOKEN_LIFETIME_S = 43_200;

/**
 * One person's consent to one app: every token issued under it, and its refresh token. An
 * install that asked for bot scopes carries them (`botScopes`); the app's bot token is issued
 * under a grant of its own, `bot: true`, whose `user` is the bot user.
 */
export interface Grant {
  appId: string;
  user: string;
  scopes: string[];
  botScopes?: string[];
  bot?: boolean;
}

export interface PendingCode {
  grant: Grant;
  /** Where the code went; `sent` when the authorize request named it (then the exchange must). */
  redirectUri: string;
  sent: boolean;
  issuedAt: number;
}

export type Redeemed = { ok: true; grant: Grant } | { ok: false; error: string };

const hex = (bytes: number): string => randomBytes(bytes).toString("hex");

export class OAuthGrants {
  private readonly codes = new Map<string, PendingCode>();
  private readonly refreshTokens = new Map<string, Grant>();
  private readonly grantOfToken = new Map<string, Grant>();

  constructor(
    private readonly opts: { model: EmulatorModel; clock: Clock; events: EventDispatcher },
  ) {}

  /** The grants, their refresh tokens and the unspent codes, as a snapshot keeps them. */
  save(): { grants: SavedGrant[]; codes: SavedCode[] } {
    const saved = new Map<Grant, SavedGrant>();
    const of = (grant: Grant): SavedGrant => {
      let entry = saved.get(grant);
      if (!entry) {
        entry = { ...grant, scopes: [...grant.scopes], tokens: [], refreshTokens: [] };
        saved.set(grant, entry);
      }
      return entry;
    };
    for (const [token, grant] of this.grantOfToken) of(grant).tokens.push(token);
    for (const [token, grant] of this.refreshTokens) of(grant).refreshTokens.push(token);
    for (const pending of this.codes.values()) of(pending.grant);
    const index = new Map([...saved.keys()].map((grant, i) => [grant, i]));
    const codes = [...this.codes].map(([code, pending]) => ({
      code,
      grant: index.get(pending.grant) ?? 0,
      redirectUri: pending.redirectUri,
      sent: pending.sent,
      issuedAt: pending.issuedAt,
    }));
    return { grants: [...saved.values()], codes };
  }

  /** Starts from saved grants (the tokens themselves are restored in the model). */
  restore(saved: { grants: SavedGrant[]; codes: SavedCode[] }): void {
    const grants = saved.grants.map(
      ({ tokens: _tokens, refreshTokens: _refresh, ...grant }): Grant => grant,
    );
    saved.grants.forEach((entry, i) => {
      const grant = grants[i] as Grant;
      for (const token of entry.tokens) this.grantOfToken.set(token, grant);
      for (const token of entry.refreshTokens) this.refreshTokens.set(token, grant);
    });
    for (const { code, grant, ...rest } of saved.codes) {
      const owner = grants[grant];
      if (owner) this.codes.set(code, { grant: owner, ...rest });
    }
  }

  /** Records a consent and returns the code the redirect carries. */
  addCode(pending: PendingCode): string {
    const code = `${this.opts.model.team.id}.${hex(24)}`;
    this.codes.set(code, pending);
    return code;
  }

  /**
   * Spends a code: single use, for the app it was issued to, within 10 minutes on the emulator's
   * clock, and with the redirect URI the authorize request named ("This must match the
   * originally submitted URI (if one was sent)"). A failed attempt leaves the code unspent.
   */
  redeemCode(code: string, appId: string, redirectUri: string | undefined, now: number): Redeemed {
    const pending = this.codes.get(code);
    if (!pending || pending.grant.appId !== appId) return { ok: false, error: "invalid_code" };
    if (now >= pending.issuedAt + CODE_LIFETIME_MS) {
      this.codes.delete(code);
      return { ok: false, error: "invalid_code" };
    }
    const mismatch = pending.sent
      ? redirectUri !== pending.redirectUri
      : redirectUri !== undefined && redirectUri !== pending.redirectUri;
    if (mismatch) return { ok: false, error: "bad_redirect_uri" };
    this.codes.delete(code);
    return { ok: true, grant: pending.grant };
  }

  /** Spends a refresh token of the app; each is good for one refresh. */
  redeemRefreshToken(value: string, appId: string): Grant | undefined {
    const grant = this.refreshTokens.get(value);
    if (!grant || grant.appId !== appId) return undefined;
    this.refreshTokens.delete(value);
    return grant;
  }

  issue(
    grant: Grant,
    rotating: boolean,
    now: number,
  ): { accessToken: string; refreshToken?: string } {
    const { model } = this.opts;
    const kind = grant.bot === true ? "xoxb" : "xoxp";
    const accessToken = rotating
      ? `xoxe.${kind}-1-${hex(24)}`
      : `${kind}-${model.team.id}-${grant.user}-${hex(16)}`;
    const token: WorkspaceToken = {
      token: accessToken,
      type: grant.bot === true ? "bot" : "user",
      user: grant.user,
      scopes: [...grant.scopes],
      state: "active",
      app: grant.appId,
      ...(rotating ? { expires_at: Math.floor(now / 1000) + ROTATING_TOKEN_LIFETIME_S } : {}),
    };
    model.tokens.set(accessToken, token);
    this.grantOfToken.set(accessToken, grant);
    if (!rotating) return { accessToken };
    const refreshToken = `xoxe-1-${hex(24)}`;
    this.refreshTokens.set(refreshToken, grant);
    return { accessToken, refreshToken };
  }

  /**
   * `auth.revoke`: the token and every token of the same consent stop working (`token_revoked`),
   * its refresh token dies, and the app hears `tokens_revoked` (then `app_uninstalled` once it
   * holds no working token).
   */
  revoke(token: WorkspaceToken): void {
    const grant = this.grantOfToken.get(token.token);
    const family = grant
      ? [...this.grantOfToken].filter(([, g]) => g === grant).map(([value]) => value)
      : [token.token];
    for (const value of family) {
      const t = this.opts.model.tokens.get(value);
      if (t) t.state = "revoked";
    }
    if (grant) this.dropRefreshTokens((g) => g === grant);
    if (token.app !== undefined && token.type !== "config") this.announce(token.app, [token]);
  }

  /** Every install token of the app is revoked; the app hears both events. */
  uninstall(appId: string): WorkspaceToken[] {
    const revoked = this.installTokens(appId);
    for (const t of revoked) t.state = "revoked";
    this.dropRefreshTokens((g) => g.appId === appId);
    for (const [code, pending] of this.codes) {
      if (pending.grant.appId === appId) this.codes.delete(code);
    }
    this.announce(appId, revoked);
    return revoked;
  }

  private installTokens(appId: string): WorkspaceToken[] {
    return [...this.opts.model.tokens.values()].filter(
      (t) => t.app === appId && t.type !== "config" && t.state === "active",
    );
  }

  private dropRefreshTokens(match: (g: Grant) => boolean): void {
    for (const [value, g] of this.refreshTokens) if (match(g)) this.refreshTokens.delete(value);
  }

  private announce(appId: string, revoked: WorkspaceToken[]): void {
    const usersOf = (kinds: (t: WorkspaceToken) => boolean) => [
      ...new Set(revoked.filter(kinds).map((t) => t.user)),
    ];
    if (revoked.length > 0) {
      const oauth = usersOf((t) => t.type !== "bot");
      const bot = usersOf((t) => t.type === "bot");
      this.emit(appId, { type: "tokens_revoked", tokens: { oauth, bot } });
    }
    // "An app is not uninstalled until its final user and bot tokens are revoked."
    if (this.installTokens(appId).length === 0) this.emit(appId, { type: "app_uninstalled" });
  }

  private emit(appId: string, event: Record<string, unknown> & { type: string }): void {
    const { model, clock, events } = this.opts;
    const state = model.apps.get(appId);
    const target = state && subscribedTarget(state, event.type);
    if (!state || !target) return;
    const envelope = eventEnvelope({
      app: state.app,
      teamId: model.team.id,
      eventId: model.nextEventId(),
      eventTime: Math.floor(clock.now() / 1000),
      event,
    });
    events.dispatch(target, envelope);
  }
}
