// lib/app/people: what a person and an operator do: install, the settings page, out-of-office,
// pause, disconnect, user administration.
import type { FeedAddressGuard } from "#lib/calendar/feed-fetch";
import type { OneTimeMarks } from "#lib/core/ports";
import type { Occurrence, UserKey } from "#lib/core/types";
import { type Config, ConfigError } from "../config";
import { contextOf, type Reconcile, type UseCaseDeps } from "../context";
import { createFeedProbe, type FirstSync } from "../sync/feed-probe";
import { disconnectUser, type RevokeToken } from "./disconnect";
import { completeInstall, type InstallInput, type InstallOutcome } from "./install";
import {
  type AddedCalendar,
  addCalendar,
  agendaOf,
  removeCalendar,
  type SelfView,
  saveRules,
  selfView,
  setPaused,
} from "./self-service";

/** The use cases of the front door: an install, and what each person does on their page. */
export interface SelfServiceUseCases {
  completeInstall(input: InstallInput): Promise<InstallOutcome>;
  selfView(key: UserKey): Promise<SelfView | undefined>;
  /** The events near today of these calendars of the person's, for the page's "Today". */
  agenda(key: UserKey, sourceIds: readonly string[]): Promise<Occurrence[] | undefined>;
  setPaused(key: UserKey, paused: boolean): Promise<void>;
  saveRules(key: UserKey, rules: unknown): Promise<void>;
  /** Checks, fetches once and saves a secret ICS address; that read is its first sync. */
  addCalendar(key: UserKey, url: string): Promise<AddedCalendar>;
  removeCalendar(key: UserKey, sourceId: string): Promise<boolean>;
  disconnect(key: UserKey, revoke: RevokeToken): Promise<boolean>;
}

/** What the web layer (lib/web/front-door.ts) builds the front door from. */
export interface FrontDoorParts {
  useCases: SelfServiceUseCases;
  fetch: typeof fetch;
  /** Where each install state's single use is recorded, and each settings link's grant. */
  marks: OneTimeMarks;
  /** The app's OAuth client id and secret (the secret from SSM on AWS, cached). */
  client(): Promise<{ id: string; secret: string }>;
  /** The key of the install state, the session cookie and the CSRF tokens. */
  webKey(): Promise<string>;
}

export interface FrontDoorPartsDeps {
  config: Config;
  useCaseDeps: UseCaseDeps;
  reconcile: Reconcile;
  fetch: typeof fetch;
  feedGuard: FeedAddressGuard;
  /** A new calendar's first sync, from the read that checked it (lib/app/sync/feed-probe.ts). */
  firstSync: FirstSync;
  marks: OneTimeMarks;
  /** Reads an SSM SecureString (Powertools Parameters, cached); `variable` names it in errors. */
  readParameter(name: string, variable: string): Promise<string>;
}

/** A secret given in clear (local), or read from the SSM parameter named (AWS). */
async function secretOf(
  deps: FrontDoorPartsDeps,
  clear: string | undefined,
  param: string | undefined,
  variable: string,
): Promise<string> {
  if (clear !== undefined) return clear;
  if (param !== undefined) return deps.readParameter(param, `${variable}_PARAM`);
  throw new ConfigError([variable], `configuration: set ${variable} or ${variable}_PARAM`);
}

export function createFrontDoorParts(deps: FrontDoorPartsDeps): FrontDoorParts {
  const ctx = contextOf(deps.useCaseDeps, deps.reconcile);
  const probe = createFeedProbe(deps.fetch, deps.feedGuard);
  const { config } = deps;
  return {
    useCases: {
      completeInstall: (input) => completeInstall(ctx, input),
      selfView: (key) => selfView(ctx, key),
      agenda: (key, sourceIds) => agendaOf(ctx, key, sourceIds),
      setPaused: (key, paused) => setPaused(ctx, key, paused),
      saveRules: (key, rules) => saveRules(ctx, key, rules),
      addCalendar: (key, url) => addCalendar(ctx, key, url, probe, deps.firstSync),
      removeCalendar: (key, sourceId) => removeCalendar(ctx, key, sourceId),
      disconnect: (key, revoke) => disconnectUser(ctx, key, revoke),
    },
    fetch: deps.fetch,
    marks: deps.marks,
    client: async () => {
      if (config.OAUTH_CLIENT_ID === undefined) {
        throw new ConfigError(["OAUTH_CLIENT_ID"], "configuration: OAUTH_CLIENT_ID is missing");
      }
      const secret = await secretOf(
        deps,
        config.OAUTH_CLIENT_SECRET,
        config.OAUTH_CLIENT_SECRET_PARAM,
        "OAUTH_CLIENT_SECRET",
      );
      return { id: config.OAUTH_CLIENT_ID, secret };
    },
    webKey: () => secretOf(deps, config.WEB_KEY, config.WEB_KEY_PARAM, "WEB_KEY"),
  };
}
