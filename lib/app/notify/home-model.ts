import type { Log } from "#lib/core/ports";
import type { StatusRecord, UserSnapshot } from "#lib/core/records";
import { desiredAt, nextTransitionAfter } from "#lib/core/timeline";
import { timelineOf } from "../status/desired-timeline";
import { type CalendarHealthView, calendarHealthOf } from "./calendar-health";

/**
 * What a person's Home tab shows, as plain data (home-blocks.ts turns it into Block Kit): their
 * connection, whether Statuspilot is paused, what shows now and the next change, each calendar's
 * health (the same view the settings page shows), Do Not Disturb when their rules use it, and
 * whether the messages that say something broke are on.
 */

/** Whether the person's token works, from the status record's re-authorisation flag. */
export type ConnectionState = "connected" | "revoked" | "expired";

export const connectionOf = (status: Pick<StatusRecord, "state"> | undefined): ConnectionState => {
  const code = status?.state.needsReauth?.code;
  if (code === undefined) return "connected";
  return code === "token_expired" ? "expired" : "revoked";
};

export interface ShownStatus {
  text: string;
  emoji: string;
}

export interface InstalledHome {
  installed: true;
  /** The person's zone, every time is shown in. */
  tz: string;
  /** When this was read, epoch ms. */
  at: number;
  connection: ConnectionState;
  paused: boolean;
  /** What the calendars put in the status now, and until when. */
  current?: ShownStatus & { until: number };
  /** The next change, and what shows then (absent: the status is cleared). */
  next?: { at: number; status?: ShownStatus };
  calendars: CalendarHealthView[];
  /** Whether Statuspilot has the person in Do Not Disturb now (what shows asks for it). */
  dnd: boolean;
  dmsOff: boolean;
}

export type HomeModel = InstalledHome | { installed: false };

/** The Home tab of the user in `snap` at `now` (not installed: no user record, or uninstalled). */
export function homeModelOf(log: Log, snap: UserSnapshot, now: number): HomeModel {
  const user = snap.user;
  if (user === undefined || user.uninstalledAt !== undefined) return { installed: false };
  const timeline = timelineOf(log, snap, now);
  const current = desiredAt(timeline, now);
  const nextAt = nextTransitionAfter(timeline, now);
  const nextBlock = nextAt === undefined ? undefined : desiredAt(timeline, nextAt);
  // Statuspilot turns DND on while a block whose rule asks for it shows (docs/rules.md), and
  // never while paused.
  const dnd = user.mode !== "paused" && current?.dnd === true;
  return {
    installed: true,
    tz: user.tz,
    at: now,
    connection: connectionOf(snap.status),
    paused: user.mode === "paused",
    ...(current !== undefined
      ? { current: { text: current.text, emoji: current.emoji, until: current.end } }
      : {}),
    ...(nextAt !== undefined
      ? {
          next: {
            at: nextAt,
            ...(nextBlock !== undefined
              ? { status: { text: nextBlock.text, emoji: nextBlock.emoji } }
              : {}),
          },
        }
      : {}),
    calendars: user.sources.map((s, i) => calendarHealthOf(user.key, user, s, i, now)),
    dnd,
    dmsOff: user.dmsOff === true,
  };
}

/**
 * The model without what moves with the clock alone (when it was read, each calendar's last and
 * next scheduled read): what the Home view's hash is taken over, so that it changes only when
 * what the tab shows changes.
 */
export function stableModelOf(model: HomeModel): HomeModel {
  if (!model.installed) return model;
  return {
    ...model,
    at: 0,
    calendars: model.calendars.map(({ lastGoodAt: _last, nextReadAt: _next, ...rest }) => rest),
  };
}
