/**
 * The one place the dev stack depends on the app's composition root: it builds the App from
 * an explicit configuration (never `process.env`) and hands it to the handlers, which fetch it
 * through `getApp()`. When the root becomes a pure `compose(config, overrides)`, only this
 * file changes.
 */

import { buildApp, provideApp, resetApp } from "../lib/app/process-app";
import type { App, AppOverrides } from "../lib/app/root";
import type { MicrosoftEnv } from "../lib/local/microsoft-config";

export type { App, AppOverrides };

/** The settings a local stack gives the app, by the names of the app's configuration. */
export interface LocalAppConfig {
  tableName: string;
  dynamoEndpoint: string;
  region: string;
  serviceBaseUrl: string;
  signingSecret: string;
  tokenKey: string;
  /** Without it the admin API requires API Gateway's IAM authorizer, as on AWS. */
  adminApiKey?: string;
  logLevel: "DEBUG" | "INFO" | "WARN" | "ERROR" | "CRITICAL" | "SILENT";
  appId?: string;
  /** The front door (`/install`, `/oauth/callback`, `/settings`); without it those routes fail. */
  web?: LocalWebConfig;
  /** Google Calendar's OAuth client and endpoints (`/connect/google`): real or the emulator. */
  google?: {
    clientId: string;
    clientSecret: string;
    authUrl: string;
    tokenUrl: string;
    apiBaseUrl: string;
  };
  /** Microsoft's MICROSOFT_* settings (`/connect/microsoft`): real or the emulator. */
  microsoft?: MicrosoftEnv;
}

/** The front door's settings: the app's OAuth client at the service, and where it is served. */
export interface LocalWebConfig {
  oauthClientId: string;
  oauthClientSecret: string;
  /** Signs the install state, session cookies and CSRF tokens (32+ characters). */
  webKey: string;
  /** The stack's own address; the redirect URL is `<base>/oauth/callback`. */
  publicBaseUrl: string;
}

/** Wraps the App at composition (e.g. the live log), before any handler gets it. */
export type AppDecorator = (app: App) => App;

/** Builds the App, decorated, and makes it the one every handler in this process gets. */
export async function composeLocalApp(
  config: LocalAppConfig,
  overrides: AppOverrides,
  decorators: readonly AppDecorator[] = [],
): Promise<App> {
  const built = await buildApp(
    {
      TABLE_NAME: config.tableName,
      DYNAMODB_ENDPOINT: config.dynamoEndpoint,
      AWS_REGION: config.region,
      SERVICE_BASE_URL: config.serviceBaseUrl,
      SIGNING_SECRET: config.signingSecret,
      TOKEN_KEY: config.tokenKey,
      ...(config.adminApiKey ? { ADMIN_API_KEY: config.adminApiKey } : {}),
      LOG_LEVEL: config.logLevel,
      ...(config.appId ? { APP_ID: config.appId } : {}),
      ...(config.web
        ? {
            OAUTH_CLIENT_ID: config.web.oauthClientId,
            OAUTH_CLIENT_SECRET: config.web.oauthClientSecret,
            WEB_KEY: config.web.webKey,
            PUBLIC_BASE_URL: config.web.publicBaseUrl,
          }
        : {}),
      ...(config.google
        ? {
            GOOGLE_CLIENT_ID: config.google.clientId,
            GOOGLE_CLIENT_SECRET: config.google.clientSecret,
            GOOGLE_AUTH_URL: config.google.authUrl,
            GOOGLE_TOKEN_URL: config.google.tokenUrl,
            GOOGLE_API_BASE_URL: config.google.apiBaseUrl,
          }
        : {}),
      ...config.microsoft,
    },
    overrides,
  );
  const app = decorators.reduce((decorated, decorate) => decorate(decorated), built);
  provideApp(app);
  return app;
}

/** Forgets the App handed to the handlers (at close). */
export function releaseLocalApp(): void {
  resetApp();
}
