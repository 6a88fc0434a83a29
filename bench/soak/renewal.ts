import { DEMO_GOOGLE_ACCOUNT } from "#lib/local/google";
import {
  closingLines,
  countFetches,
  editsLine,
  HOUR,
  json,
  RENEWAL_SHAPE,
  type RenewalOutcome,
  type RenewalShape,
  runRenewalHarness,
  upkeepsLine,
} from "./renewal-harness";

// What the other runs took from this module before the harness was shared (the push-backed cost
// user's Jar, the soak command's shape).
export { Jar, RENEWAL_SHAPE, type RenewalShape } from "./renewal-harness";

/**
 * The renewal soak (issue 14): a local stack with the Google emulator on one hand-moved clock,
 * one person connected to Google over HTTP (/install, /connect/google), then a simulated month
 * with short channel lifetimes and faults on (rate-limited Calendar calls, expired sync tokens,
 * expired access tokens). Every simulated hour the calendar may change; each change must reach
 * the source through its push at the instant it happens (no push lost), and the channel must
 * never be found lapsed: renewals at 80% of the lifetime, scheduled through the due index and
 * retried after a failure, keep it alive. The month itself is bench/soak/renewal-harness.ts's;
 * what is Google's is here.
 */

const CALENDAR = `/calendars/${encodeURIComponent(DEMO_GOOGLE_ACCOUNT)}/events`;

export interface RenewalReport extends RenewalOutcome {
  /** Channels the emulator created: the first, and each renewal or repair. */
  channelsCreated: number;
}

export async function runRenewalSoak(
  shape: RenewalShape = RENEWAL_SHAPE,
  progress?: (line: string) => void,
): Promise<RenewalReport> {
  // Counts the app's Calendar reads (events.list, the poll cost of a push-backed source).
  const reads = countFetches((url) => url.includes("/calendar/v3/calendars/primary/events?"));
  try {
    return await runRenewalHarness(
      shape,
      {
        kind: "google",
        name: "Google",
        label: "renewal soak",
        stackOptions: { google: { emulator: { autoApprove: true } } },
        attach(stack) {
          const google = stack.google?.emulator?.url ?? "";
          const control = (route: string, body?: unknown) =>
            json(`${google}/_control${route}`, {
              method: body === undefined ? "GET" : "POST",
              headers: { "content-type": "application/json" },
              ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
            });
          return {
            // Auto-approved consent: the redirects land on the settings page.
            connect: (jar) => jar.follow(`${stack.url}/connect/google`),
            flushPushes: async () => {
              await control("/flush", {});
            },
            async injectFault(random) {
              const pick = random();
              const fault =
                pick < 0.5
                  ? {
                      rateLimit: {
                        status: 403,
                        reason: "rateLimitExceeded",
                        times: 1 + Math.floor(random() * 3),
                      },
                    }
                  : pick < 0.75
                    ? { expireSyncTokens: { calendar: DEMO_GOOGLE_ACCOUNT } }
                    : { expireAccessTokens: { user: DEMO_GOOGLE_ACCOUNT } };
              await control("/faults", fault);
              return Object.keys(fault)[0] ?? "";
            },
            async createEvent(title, start, end) {
              const created = await control(CALENDAR, {
                summary: title,
                start: { dateTime: new Date(start).toISOString() },
                end: { dateTime: new Date(end).toISOString() },
              });
              return String(created.id);
            },
            async cancelEvent(id) {
              await control(`${CALENDAR}/${encodeURIComponent(id)}/cancel`, {});
            },
            readsMade: () => reads.made,
            ownFigures: async () => ({
              channelsCreated: ((await control("/channels")).channels as unknown[]).length,
            }),
          };
        },
      },
      progress,
    );
  } finally {
    reads.restore();
  }
}

export function formatRenewalReport(r: RenewalReport): string {
  return [
    `renewal soak: ${r.shape.days} simulated days, channels asked for ${r.shape.channelTtlMs / HOUR} h`,
    editsLine(r),
    `  channels created ${r.channelsCreated} (the first and each renewal or repair)`,
    upkeepsLine(r),
    `  Calendar reads ${r.reads.made} (pushes, probes and the 6-hourly safety poll); a 15-minute poll alone: ${r.reads.fifteenMinutePoll}`,
    ...closingLines(r),
  ].join("\n");
}
