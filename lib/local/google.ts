import { randomBytes } from "node:crypto";
import { type RunningGoogleEmulator, startGoogleEmulator } from "#emulator/google/server";
import type { Clock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";
import { connectCallbackPath } from "#lib/web/connect";
import type { DemoEvent } from "./demo-feed";

/**
 * Google for a local stack: the `--config` file's `providers.google` when it is given (a real
 * Google OAuth client, or any other Google-compatible service), otherwise the Google emulator
 * (emulator/google) on a free port, with an OAuth client for this stack's callback and one
 * demo account.
 */
export interface LocalGoogleSettings {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  /** The Google APIs root (the Calendar API is under `/calendar/v3`). */
  apiBaseUrl: string;
}

/** The emulator's demo account: whoever connects Google locally signs in as it. */
export const DEMO_GOOGLE_ACCOUNT = "demo@calendar.example";

export interface LocalGoogle {
  settings: LocalGoogleSettings;
  /** Present when the stack runs the emulator (no `providers.google` given). */
  emulator?: RunningGoogleEmulator;
  close(): Promise<void>;
}

export async function startLocalGoogle(opts: {
  given?: LocalGoogleSettings;
  /** Where the stack is served: the OAuth redirect is `<base>/connect/google/callback`. */
  publicBaseUrl: string;
  clock: Clock;
  log: Log;
  /** Approve the consent page at once as the demo account (tests, scripted demos). */
  autoApprove?: boolean;
  /** The demo account's zone. */
  timeZone?: string;
  /** Put in the demo account's calendar at start (the demo's meetings, as Google events). */
  events?: readonly DemoEvent[];
}): Promise<LocalGoogle> {
  if (opts.given !== undefined) return { settings: opts.given, close: async () => {} };
  const clientId = "statuspilot-local.apps.googleusercontent.com";
  const clientSecret = `GOCSPX-${randomBytes(12).toString("base64url")}`;
  const emulator = await startGoogleEmulator({
    clock: opts.clock,
    log: opts.log,
    clients: [
      {
        clientId,
        clientSecret,
        redirectUris: [new URL(connectCallbackPath("google"), opts.publicBaseUrl).href],
      },
    ],
    users: [
      {
        email: DEMO_GOOGLE_ACCOUNT,
        name: "Demo",
        ...(opts.timeZone !== undefined ? { timeZone: opts.timeZone } : {}),
      },
    ],
    ...(opts.autoApprove === true ? { autoApprove: DEMO_GOOGLE_ACCOUNT } : {}),
  });
  for (const event of opts.events ?? []) {
    if (event.cancelled) continue;
    emulator.control.addEvent(DEMO_GOOGLE_ACCOUNT, googleEventOf(event));
  }
  return {
    settings: {
      clientId,
      clientSecret,
      authUrl: emulator.authUrl,
      tokenUrl: emulator.tokenUrl,
      apiBaseUrl: emulator.apiBaseUrl,
    },
    emulator,
    close: () => emulator.close(),
  };
}

/** A demo event as the Event resource's writable fields (OOF → outOfOffice, FREE → available). */
function googleEventOf(event: DemoEvent): Record<string, unknown> {
  const time = (at: number, date: string | undefined) =>
    date !== undefined ? { date } : { dateTime: new Date(at).toISOString() };
  return {
    summary: event.summary,
    start: time(event.start, event.allDay?.start),
    end: time(event.end, event.allDay?.end),
    ...(event.busyStatus === "OOF" ? { eventType: "outOfOffice" } : {}),
    ...(event.busyStatus === "FREE" ? { transparency: "transparent" } : {}),
  };
}
