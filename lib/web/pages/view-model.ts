import type { CustomStatus, Standing, Weekday, WorkingHours } from "#lib/core/rules";
import type { BlockKind, StatusKind } from "#lib/core/types";

/**
 * What the pages show, as plain data: the routes build these from the user's records, and the
 * pages are pure functions of them. Instants are epoch ms; the pages render them in `tz`.
 */

/** Where the front door's pages live. */
export const PATHS = {
  install: "/install",
  settings: "/settings",
} as const;

/** Where each form of the settings page posts (`application/x-www-form-urlencoded`). */
export const SETTINGS_ACTIONS = {
  addCalendar: "/settings/calendars/add",
  removeCalendar: "/settings/calendars/remove",
  saveRules: "/settings/rules",
  pause: "/settings/pause",
  resume: "/settings/resume",
  scheduleOoo: "/settings/ooo/add",
  cancelOoo: "/settings/ooo/cancel",
  disconnect: "/settings/disconnect",
  signOut: "/settings/sign-out",
  syncNow: "/settings/sync",
  messages: "/settings/messages",
} as const;

/** The one-time link of the Home tab's "Open settings": signs the person in, once, for 5 minutes. */
export const SETTINGS_LINK_PATH = "/settings/open";

const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const isIndex = (segment: string): boolean => /^\d+$/.test(segment);

/**
 * The rules form's name for a member of the rules, from its path: `["focus", "emoji"]` →
 * `focus_emoji`, `["showTitles"]` → `show_titles`. An index into a list of values names the
 * list's field (`["focus", "keywords", 2]` → `focus_keywords`: one keyword per line); an index
 * into a list of objects names the row (`["custom", 2, "emoji"]` → `custom_2_emoji`).
 */
export const ruleField = (...path: readonly (string | number)[]): string => {
  const segments = path.map(String);
  return segments
    .filter((segment, i) => {
      if (!isIndex(segment)) return true;
      const next = segments[i + 1];
      return next !== undefined && !isIndex(next);
    })
    .map(snakeCase)
    .join("_");
};

/** The name of the checkbox for `value` in a list of checkboxes named `list`. */
export const listItemField = (list: string, value: string): string => `${list}_${value}`;

/**
 * The rules form's field a JSON pointer into the rules names (`/rules/focus/emoji` →
 * `focus_emoji`), by the same derivation as the fields' names; undefined outside `prefix`.
 */
export function ruleFieldOfPointer(pointer: string, prefix = "/rules"): string | undefined {
  if (pointer !== prefix && !pointer.startsWith(`${prefix}/`)) return undefined;
  const path = pointer
    .slice(prefix.length + 1)
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
  return path.length === 0 ? undefined : ruleField(...path);
}

/**
 * The names of the fields the forms send (besides the CSRF field, `csrf`). Checkboxes send
 * `on` when ticked and nothing at all when not: absent means false.
 */
export const FIELDS = {
  /** addCalendar: the secret ICS address. */
  calendarUrl: "url",
  /** removeCalendar: the source id. */
  calendarId: "source",
  /** saveRules: `<kind>_text`, `<kind>_emoji`, `<kind>_keywords` (one keyword per line). */
  ruleText: (kind: StatusKind) => ruleField(kind, "text"),
  ruleEmoji: (kind: StatusKind) => ruleField(kind, "emoji"),
  ruleKeywords: (kind: StatusKind) => ruleField(kind, "keywords"),
  /** saveRules: `<kind>_dnd`, a checkbox. */
  ruleDnd: (kind: StatusKind) => ruleField(kind, "dnd"),
  showTitles: ruleField("showTitles"),
  skipTentative: ruleField("skipTentative"),
  /**
   * saveRules: a member of the custom status in form row `row` (`custom_2_emoji`): the stored
   * statuses' rows, then an empty one that adds a status when filled in. `keywords` one per line;
   * `calendars` one checkbox each, its value the calendar's id; `online` a select of "" (any
   * event), "yes" or "no"; `priority` a whole number.
   */
  custom: (row: number, member: keyof CustomStatus) => ruleField("custom", row, member),
  /** saveRules: ticked, the custom status in form row `row` is deleted. */
  customDelete: (row: number) => ruleField("custom", row, "delete"),
  skipNoGuests: ruleField("skipNoGuests"),
  /** saveRules: one checkbox per calendar, its value the calendar's id. */
  skipCalendars: ruleField("skipCalendars"),
  /** saveRules: a radio button, `keep` or `restore`. */
  standing: ruleField("standing"),
  /** saveRules: ticked, the person has working hours (the members below). */
  workingHours: ruleField("workingHours"),
  /** saveRules: `days` one checkbox per day (`mon`…`sun`); `start` and `end` as HH:MM. */
  workingHoursMember: (member: keyof WorkingHours) => ruleField("workingHours", member),
  /** scheduleOoo: `YYYY-MM-DD` dates in the user's zone, first and last day (inclusive). */
  oooFirstDay: "first_day",
  oooLastDay: "last_day",
  oooMessage: "message",
  /** cancelOoo: the entry id. */
  oooEntryId: "entry",
  /** disconnect: must be ticked. */
  confirmDisconnect: "confirm",
  /** messages: `on` to get a message when something breaks, `off` to stop them. */
  messages: "messages",
} as const;

export const STATUS_KINDS: readonly StatusKind[] = ["meeting", "focus", "ooo"];

/** Whether the user's token works; `revoked` and `expired` offer the Reconnect button. */
export type ConnectionState = "connected" | "revoked" | "expired";

export interface CalendarView {
  id: string;
  /** How the calendar is named on the page (its own name): never the secret address itself. */
  label: string;
  /** What kind of calendar it is, in words ("ICS feed, calendar.example.com/…a1b2"). */
  kind?: string;
  /** Epoch ms of the last successful read, when there was one. */
  lastReadAt?: number;
  /** Why the last read failed, in words for the user. */
  problem?: string;
  /** Since when every read has failed (with `problem`), epoch ms. */
  failingSince?: number;
  /** When it is read next, epoch ms. */
  nextReadAt?: number;
  /** A connected calendar's push channel: its state and when it expires (epoch ms). */
  push?: { state: "none" | "live" | "renewing" | "lapsed" | "reconnect"; expiresAt?: number };
  /** Where to connect it again, when its account must be reconnected. */
  reconnectHref?: string;
}

/** A calendar provider the person may connect ("Connect Google" → `href`). */
export interface ConnectOffer {
  label: string;
  href: string;
}

export interface StatusView {
  text: string;
  emoji: string;
}

export interface TimelineBlockView extends StatusView {
  start: number;
  end: number;
  /** A built-in kind, a custom status (`custom`) or the time outside working hours (`offHours`). */
  kind: BlockKind;
}

/** One of today's events, the status it sets, and why (lib/core/explain.ts). */
export interface EventWhyView {
  start: number;
  end: number;
  allDay: boolean;
  /** The event's title: the page is the person's own. */
  title: string;
  /** The status it sets; absent: it sets none (`rule` says why). */
  status?: StatusView;
  /** The rule that chose it ("Lunch: keyword lunch"), or "skipped: <why>", calendars by name. */
  rule: string;
}

export interface TodayView {
  /** Today's blocks in the user's zone, in order. */
  blocks: TimelineBlockView[];
  /** Today's events, each with what it shows and why; absent when not known. */
  events?: EventWhyView[];
  /** What the status shows now; absent: no status. */
  current?: StatusView & { until?: number };
  /** The next change; `status` absent means the status is then cleared. */
  next?: { at: number; status?: StatusView };
}

export interface KindRuleView {
  text: string;
  emoji: string;
  keywords: string[];
  dnd?: boolean;
}

/** One of the person's own statuses, as the rules store it (`calendars` are source ids). */
export type CustomStatusView = CustomStatus;

export interface WorkingHoursView {
  days: Weekday[];
  start: string;
  end: string;
  text: string;
  emoji: string;
  dnd: boolean;
}

export interface RulesView {
  kinds: Record<StatusKind, KindRuleView>;
  showTitles: boolean;
  skipTentative: boolean;
  custom?: CustomStatusView[];
  skipNoGuests?: boolean;
  /** Source ids. */
  skipCalendars?: string[];
  workingHours?: WorkingHoursView;
  standing?: Standing;
}

export interface OooEntryView {
  id: string;
  start: number;
  end: number;
  message?: string;
}

export interface Notice {
  tone: "info" | "error";
  text: string;
  /** Further lines under the text (what a refused form got wrong that no field shows). */
  details?: string[];
}

/**
 * A form the page answers itself because it refused it: what was typed (field name → value;
 * a checkbox left unticked is absent) is shown again, and each field named in `errors` is
 * marked with its reason. Nothing of it was saved.
 */
export interface RefusedForm {
  /** The form's action path (SETTINGS_ACTIONS). */
  action: string;
  values: Record<string, string>;
  /** Field name → why its value was refused. */
  errors: Record<string, string>;
}

export interface SettingsView {
  /** This session's CSRF token; every form carries it. */
  csrfToken: string;
  /** Epoch ms: what "today" and "now" mean on the page. */
  now: number;
  user: {
    id: string;
    team: string;
    /** How to greet the person, when known. */
    name?: string;
    /** IANA zone every time on the page is shown in. */
    tz: string;
    /** BCP 47 locale for dates and times (default en-GB). */
    locale?: string;
  };
  connection: ConnectionState;
  calendars: CalendarView[];
  /** The calendar providers that can be connected through their sign-in. */
  connectable?: ConnectOffer[];
  today: TodayView;
  rules: RulesView;
  paused: boolean;
  ooo: OooEntryView[];
  /**
   * The person's token lacks the Do Not Disturb scopes (or they are unknown): beside the `dnd`
   * toggles, "Reconnect to allow Do Not Disturb"; their statuses work on without it.
   */
  dndReconnect?: boolean;
  /** The outcome of the last form sent (post/redirect/get), when there is one. */
  notice?: Notice;
  /** The Home tab and messages: whether messages are off, whether they work (a bot token). */
  home?: { dmsOff: boolean; noBot: boolean };
  /** The form just sent, when it was refused and the page answers it with what was typed. */
  refused?: RefusedForm;
}
