// lib/app/accounts: the calendar accounts a person connects through OAuth: the providers, and
// access tokens from sealed refresh tokens.
import { googlePushLifecycle } from "#lib/calendar/providers/google";
import { googleOAuth } from "#lib/calendar/providers/google-oauth";
import { graphSubscriptions } from "#lib/calendar/providers/graph";
import { graphOAuth } from "#lib/calendar/providers/graph-oauth";
import type { CalendarOAuth, PushLifecycle } from "#lib/calendar/providers/provider";
import type { ChannelKind } from "#lib/core/source-kinds";
import { type Config, ConfigError, googleSettingsOf, microsoftSettingsOf } from "../config";

/**
 * The calendar providers a person connects through OAuth, one entry each: the path segment of
 * `/connect/<path>`, the source and channel kind it creates, its OAuth client, its push
 * lifecycle and its configured endpoints. Microsoft is one more entry (its CalendarOAuth and
 * PushLifecycle come from lib/calendar/providers/graph*.ts).
 */
export interface ConnectProvider {
  /** `/connect/<path>` and `/connect/<path>/callback`. */
  path: string;
  /** The kind of the source it creates (and of its push channel). */
  kind: ChannelKind;
  /** How the settings page names it ("Connect Google"). */
  label: string;
  oauth: CalendarOAuth;
  /** Its OAuth client and endpoints from the configuration, or undefined when not configured. */
  settings(config: Config): ConnectSettings | undefined;
  lifecycle(apiBaseUrl: string): PushLifecycle;
  /** Where its pushes arrive, under PUBLIC_BASE_URL (the hook's route). */
  hookPath: string;
}

export interface ConnectSettings {
  clientId: string;
  /** In clear (local) or the SSM SecureString parameter holding it (AWS). */
  secret: { clear: string } | { param: string };
  authUrl: string;
  tokenUrl: string;
  apiBaseUrl: string;
}

export const CONNECT_PROVIDERS: readonly ConnectProvider[] = [
  {
    path: "google",
    kind: "google",
    label: "Google",
    oauth: googleOAuth,
    settings: googleSettingsOf,
    lifecycle: googlePushLifecycle,
    hookPath: "/hooks/google",
  },
  {
    path: "microsoft",
    kind: "graph",
    label: "Microsoft",
    oauth: graphOAuth,
    settings: microsoftSettingsOf,
    lifecycle: graphSubscriptions,
    hookPath: "/hooks/graph",
  },
];

export const connectProviderAt = (path: string): ConnectProvider | undefined =>
  CONNECT_PROVIDERS.find((p) => p.path === path);

export const connectProviderOfKind = (kind: string): ConnectProvider | undefined =>
  CONNECT_PROVIDERS.find((p) => p.kind === kind);

/** The configured providers only: what the settings page offers. */
export const configuredProviders = (config: Config): ConnectProvider[] =>
  CONNECT_PROVIDERS.filter((p) => p.settings(config) !== undefined);

/** A provider's settings, or a ConfigError naming what is missing. */
export function requireSettings(provider: ConnectProvider, config: Config): ConnectSettings {
  const settings = provider.settings(config);
  if (settings === undefined) {
    const name = provider.path.toUpperCase();
    throw new ConfigError(
      [`${name}_CLIENT_ID`],
      `configuration: ${name}_CLIENT_ID and ${name}_CLIENT_SECRET (or _PARAM) are needed to connect ${provider.label}`,
    );
  }
  return settings;
}
