/** The Microsoft emulator's options, its demo data, faults and its programmatic API. */
import type { Clock } from "#lib/core/clock";
import type { MsClient } from "./identity";
import type { EventInput, MsUser, StoredSubscription } from "./model";
import type { DeliveryRecord } from "./notifier";

/** Faults, all off by default. Counts are spent one call at a time. */
export interface MsFaults {
  /** The next N Graph calls answer 429 with `Retry-After`. */
  throttleNext?: number;
  /** Each Graph call answers 429 with this probability (seeded). */
  throttleRate?: number;
  /** The `Retry-After` seconds of a throttled answer (default 1). */
  retryAfterS?: number;
  /** The next N delta calls with a `$deltatoken` answer 410: the sync state is gone. */
  expireDeltaNext?: number;
}

export interface MicrosoftEmulatorOptions {
  users?: MsUser[];
  clients?: MsClient[];
  tenantId?: string;
  clock?: Clock;
  port?: number;
  faults?: MsFaults;
  seed?: number;
  /** Graph's handshake limit is 10 s. */
  validationTimeoutMs?: number;
  notificationTimeoutMs?: number;
  /** Delays before notification retries (wall-clock). */
  notificationRetryDelaysMs?: number[];
  /** Real-time interval of the subscription expiry sweep; 0 disables it (every request sweeps too). */
  expirySweepMs?: number;
  /**
   * The longest lifetime granted to a subscription, in seconds: a POST or PATCH asking for more
   * is granted this (Graph may shorten a lifetime). By default what is asked, up to 10,080 min.
   */
  grantedLifetimeS?: number;
}

export const DEMO_TENANT_ID = "9188040d-6c67-4c5b-b112-36a304b66dad";
export const DEMO_USERS: MsUser[] = [
  {
    id: "6e7b768e-07e2-4810-8459-485f84f8f204",
    userPrincipalName: "adele@contoso.example",
    displayName: "Adele Vance",
  },
];
export const DEMO_CLIENTS: MsClient[] = [
  {
    clientId: "statuspilot-local",
    clientSecret: "statuspilot-local-secret",
    redirectUris: [],
    name: "Statuspilot (local)",
  },
];

export interface RunningMicrosoftEmulator {
  url: string;
  /** `<url>/common/oauth2/v2.0/authorize`, `…/token`, `<url>` + `/v1.0` for Graph. */
  authUrl: string;
  tokenUrl: string;
  graphBaseUrl: string;
  port: number;
  close(): Promise<void>;
  createEvent(userId: string, input: EventInput): string;
  updateEvent(userId: string, eventId: string, input: EventInput): void;
  deleteEvent(userId: string, eventId: string): void;
  setFaults(f: MsFaults): void;
  /** Grants subscriptions at most `maxS` seconds from now on; undefined: what is asked. */
  setGrantedLifetime(maxS: number | undefined): void;
  subscriptions(): StoredSubscription[];
  /** Removes a subscription as Outlook may, with a `subscriptionRemoved` lifecycle notification. */
  removeSubscription(id: string): boolean;
  /** Sends `reauthorizationRequired`; notifications are held until PATCH or reauthorize. */
  requireReauthorization(id: string): boolean;
  /** Sends a `missed` lifecycle notification. */
  sendMissed(id: string): boolean;
  /** The silent-stop fault: the subscription stays, but it never notifies again. */
  silence(id: string): boolean;
  /** The `invalid_grant` fault: the user's refresh tokens stop working. */
  revokeRefreshTokens(userId: string): number;
  /** Tokens as a consent would issue them (tests). */
  issueTokens(clientId: string, userId: string, scopes: string[]): Record<string, unknown>;
  /** Drops subscriptions past their expiration (also done before every request). */
  sweepExpired(): number;
  deliveries(): DeliveryRecord[];
  flushNotifications(): Promise<void>;
  /** Notifications on their way (not between a failed attempt and its retry). */
  notificationsUnderway(): number;
  /** Graph calls answered, by path (without query), for poll counting. */
  calls(): { at: number; method: string; path: string; status: number }[];
}
