/**
 * The one place the dev stack depends on the app's composition root: it composes the App from
 * an explicit configuration (never `process.env`), with every module a function may load, and
 * hands it to the functions' factories as their source (devstack/lambdas.ts).
 */

import type { App, AppOverrides, AppSource } from "#lib/app/compose/app";
import { compose } from "#lib/app/compose/compose";
import { ALL_MODULES } from "#lib/app/compose/modules";
import { systemWorkTimer } from "#lib/app/compose/system-clock";
import { loadConfig } from "#lib/app/config";
import type { LambdaRuntime } from "./runtime";

/** The MICROSOFT_* settings of lib/app/config.ts. */
export interface MicrosoftEnv {
  MICROSOFT_CLIENT_ID: string;
  MICROSOFT_CLIENT_SECRET: string;
  MICROSOFT_AUTH_URL: string;
  MICROSOFT_TOKEN_URL: string;
  MICROSOFT_GRAPH_BASE_URL: string;
}

export type { App, AppOverrides, AppSource };

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

/**
 * The App of a local stack: every function in this process shares it (on AWS each has its own,
 * holding only the modules its factory names). Overrides first, as `compose` takes them.
 */
export function composeLocalApp(config: LocalAppConfig, overrides: AppOverrides = {}): App {
  return compose(
    loadConfig({
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
    }),
    { modules: ALL_MODULES, ...overrides },
  );
}

/**
 * The App's ports a handler reaches (the queues, fetch, DynamoDB, the work timer's give-way),
 * each refusing calls made after the caller's invocation ended, as Lambda would freeze that work
 * (devstack/runtime.ts): a feed's expansion stops at its next pause once its invocation timed
 * out or the stack stopped.
 */
export function frozenAfterReturn(
  runtime: LambdaRuntime,
  ports: Required<Pick<AppOverrides, "transitionQueue" | "syncQueue" | "fetch">>,
): Pick<
  AppOverrides,
  "transitionQueue" | "syncQueue" | "fetch" | "beforeDynamoCall" | "workTimer"
> {
  return {
    transitionQueue: runtime.guard("transitionQueue", ports.transitionQueue),
    syncQueue: runtime.guard("syncQueue", ports.syncQueue),
    fetch: runtime.guardFetch(ports.fetch),
    beforeDynamoCall: (operation) => runtime.assertLive(`dynamodb.${operation}`),
    workTimer: {
      elapsedMs: systemWorkTimer.elapsedMs,
      cpuMs: systemWorkTimer.cpuMs,
      giveWay: () => {
        try {
          runtime.assertLive("workTimer.giveWay");
        } catch (error: unknown) {
          return Promise.reject(error);
        }
        return systemWorkTimer.giveWay();
      },
    },
  };
}
