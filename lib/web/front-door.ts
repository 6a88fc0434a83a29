import type { App } from "#lib/app/compose/app";
import { authorizeEndpointOf, type Config, ConfigError } from "#lib/app/config";
import type { FrontDoorParts } from "#lib/app/people/front-door";
import { authorizeUrl, OAuthClient } from "#lib/service/oauth-client";
import { CsrfTokens } from "./csrf";
import { OAuthStates } from "./oauth-state";
import { SessionCookies } from "./session";
import { SettingsLinks } from "./settings-link";

/** What `/install` asks for: the person's own profile (read and write) and `users:read`, which
 * the platform requires for `user_change` (and `users.info`'s zone); their Do Not Disturb snooze
 * (`dnd:read`, `dnd:write`: lib/core/dnd.ts); the bot's slash commands, and `chat:write` for the
 * bot's direct messages (the Home tab needs no scope). */
export const USER_SCOPES = [
  "users.profile:read",
  "users.profile:write",
  "users:read",
  "dnd:read",
  "dnd:write",
] as const;
export const BOT_SCOPES = ["chat:write", "commands"] as const;

/** Where the service sends the person back; the redirect URL is `<PUBLIC_BASE_URL>` + this. */
export const CALLBACK_PATH = "/oauth/callback";

/**
 * The settings the front door cannot work without that `config` lacks, by name (a secret may be
 * given in clear or as an SSM parameter name: either counts). Empty when it is configured.
 */
export function missingFrontDoorSettings(config: Config): string[] {
  const missing: string[] = [];
  if (config.OAUTH_CLIENT_ID === undefined) missing.push("OAUTH_CLIENT_ID");
  if (config.OAUTH_CLIENT_SECRET === undefined && config.OAUTH_CLIENT_SECRET_PARAM === undefined) {
    missing.push("OAUTH_CLIENT_SECRET (or OAUTH_CLIENT_SECRET_PARAM)");
  }
  if (config.WEB_KEY === undefined && config.WEB_KEY_PARAM === undefined) {
    missing.push("WEB_KEY (or WEB_KEY_PARAM)");
  }
  if (config.PUBLIC_BASE_URL === undefined) missing.push("PUBLIC_BASE_URL");
  return missing;
}

/** The front door's pieces, made from the app's configuration and secrets. */
export interface FrontDoor {
  parts: FrontDoorParts;
  states: OAuthStates;
  sessions: SessionCookies;
  csrf: CsrfTokens;
  /** The Home tab's one-time "Open settings" links. */
  settingsLinks: SettingsLinks;
  oauth: OAuthClient;
  /** Served over https: cookies are then Secure (and `__Host-` named). */
  secure: boolean;
  /** The origin the pages are served from (PUBLIC_BASE_URL's), that forms must come from. */
  origin: string;
  redirectUri: string;
  /** The service's authorize URL for a fresh `state`. */
  authorizeUrl(state: string): string;
}

/**
 * Builds the front door for one request. Cheap: the secrets come from Powertools Parameters'
 * cache on AWS (a rotated key reaches warm functions within minutes), in clear locally.
 */
export async function frontDoorOf(app: App): Promise<FrontDoor> {
  const parts = app.frontDoor;
  const base = app.config.PUBLIC_BASE_URL;
  if (parts === undefined) throw new Error("this app was composed without its front door");
  if (base === undefined) {
    throw new ConfigError(["PUBLIC_BASE_URL"], "configuration: PUBLIC_BASE_URL is missing");
  }
  const [client, key] = await Promise.all([parts.client(), parts.webKey()]);
  const redirectUri = new URL(CALLBACK_PATH, base).href;
  const secure = new URL(base).protocol === "https:";
  const endpoint = authorizeEndpointOf(app.config);
  return {
    parts,
    states: new OAuthStates({ key, clock: app.clock, marks: parts.marks }),
    sessions: new SessionCookies({ key, clock: app.clock, secure }),
    csrf: new CsrfTokens({ key }),
    settingsLinks: new SettingsLinks({ clock: app.clock, marks: parts.marks }),
    oauth: new OAuthClient({
      baseUrl: app.config.SERVICE_BASE_URL,
      clientId: client.id,
      clientSecret: client.secret,
      clock: app.clock,
      fetch: parts.fetch,
      log: app.log,
    }),
    secure,
    origin: new URL(base).origin,
    redirectUri,
    authorizeUrl: (state) =>
      authorizeUrl({
        endpoint,
        clientId: client.id,
        userScopes: USER_SCOPES,
        botScopes: BOT_SCOPES,
        redirectUri,
        state,
      }),
  };
}
