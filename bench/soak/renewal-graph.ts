import { DEMO_USERS } from "#emulator/microsoft/server";
import {
  closingLines,
  editsLine,
  HOUR,
  RENEWAL_SHAPE,
  type RenewalOutcome,
  type RenewalShape,
  runRenewalHarness,
  upkeepsLine,
} from "./renewal-harness";

/**
 * The renewal soak for Microsoft Graph (issue 14): as bench/soak/renewal.ts does for Google, a
 * local stack with the Microsoft emulator on one hand-moved clock, one person connected over
 * HTTP (/install, /connect/microsoft), then simulated days with short subscription lifetimes and
 * faults on (throttled Graph calls, short and long Retry-After; delta tokens Graph no longer
 * knows; `missed` lifecycle notifications; access tokens expire by the clock every hour). Each
 * calendar change must reach the source through its change notification at the instant it
 * happens, and the subscription must never be found lapsed: PATCH renewals at 80%, scheduled
 * through the due index, keep it. The month itself is bench/soak/renewal-harness.ts's; what is
 * Graph's is here.
 */

const MS_USER = DEMO_USERS[0]?.id ?? "";

export interface GraphRenewalReport extends RenewalOutcome {
  /** Subscriptions created (POST) and renewed (PATCH) at Graph. */
  created: number;
  renewed: number;
}

export async function runGraphRenewalSoak(
  shape: RenewalShape = RENEWAL_SHAPE,
  progress?: (line: string) => void,
): Promise<GraphRenewalReport> {
  return runRenewalHarness(
    shape,
    {
      kind: "graph",
      name: "Microsoft",
      label: "graph renewal soak",
      stackOptions: { google: false },
      attach(stack) {
        const graph = stack.microsoft?.emulator;
        if (graph === undefined) throw new Error("the stack runs no Microsoft emulator");
        return {
          async connect(jar) {
            const begin = await jar.visit(`${stack.url}/connect/microsoft`);
            const consent = new URL(begin.headers.get("location") ?? "");
            consent.searchParams.set("as", MS_USER);
            return jar.follow(consent.href);
          },
          flushPushes: () => graph.flushNotifications(),
          async injectFault(random) {
            const pick = random();
            const name =
              pick < 0.35
                ? "throttleShort"
                : pick < 0.6
                  ? "throttleLong"
                  : pick < 0.85
                    ? "expireDelta"
                    : "missed";
            if (name === "throttleShort") graph.setFaults({ throttleNext: 1, retryAfterS: 1 });
            else if (name === "throttleLong") graph.setFaults({ throttleNext: 1, retryAfterS: 30 });
            else if (name === "expireDelta") graph.setFaults({ expireDeltaNext: 1 });
            else for (const s of graph.subscriptions()) graph.sendMissed(s.id);
            return name;
          },
          // A fault of Graph's lasts the hour it was set in.
          endHour: () => graph.setFaults({}),
          createEvent: async (subject, start, end) =>
            graph.createEvent(MS_USER, { subject, start, end }),
          async cancelEvent(id) {
            graph.updateEvent(MS_USER, id, { isCancelled: true });
          },
          // calendarView calls (delta rounds and window pages), as the Google soak counts
          // events.list.
          readsMade: () =>
            graph.calls().filter((c) => c.method === "GET" && c.path.includes("/calendarView"))
              .length,
          ownFigures: async () => {
            const calls = graph.calls();
            return {
              created: calls.filter(
                (c) => c.method === "POST" && c.path === "/v1.0/subscriptions" && c.status === 201,
              ).length,
              renewed: calls.filter((c) => c.method === "PATCH" && c.status === 200).length,
            };
          },
        };
      },
    },
    progress,
  );
}

export function formatGraphRenewalReport(r: GraphRenewalReport): string {
  return [
    `graph renewal soak: ${r.shape.days} simulated days, subscriptions asked for ${r.shape.channelTtlMs / HOUR} h`,
    editsLine(r),
    `  subscriptions created ${r.created}, renewed ${r.renewed}`,
    `  calendarView calls ${r.reads.made} (notifications, probes and the 6-hourly safety poll); a 15-minute poll alone: ${r.reads.fifteenMinutePoll}`,
    upkeepsLine(r),
    ...closingLines(r),
  ].join("\n");
}
