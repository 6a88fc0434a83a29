import type { App } from "#lib/app/compose/app";
import { InvalidInputError } from "#lib/app/errors";
import type { RevokeToken } from "#lib/app/people/disconnect";
import type { SelfView } from "#lib/app/people/self-service";
import type { UserKey } from "#lib/core/types";
import { CSRF_FIELD } from "#lib/web/csrf";
import type { FrontDoor } from "#lib/web/front-door";
import { oooDayRange } from "#lib/web/pages/settings-view";
import { FIELDS, type Notice, type RefusedForm, SETTINGS_ACTIONS } from "#lib/web/pages/view-model";
import { rulesFieldOf, rulesFromForm } from "#lib/web/rules-form";
import type { Session } from "#lib/web/session";

/** Who is signed in: the session cookie decides, never a form field. */
export interface SignedIn {
  door: FrontDoor;
  session: Session;
  key: UserKey;
  view: SelfView;
}

/** The outcome of a form, shown on the page it redirects to (a code: no text is reflected). */
export type NoticeCode =
  | "calendar_added"
  | "calendar_queued"
  | "calendar_refused"
  | "calendar_removed"
  | "rules_saved"
  | "rules_refused"
  | "paused"
  | "resumed"
  | "ooo_scheduled"
  | "ooo_refused"
  | "ooo_cancelled"
  | "confirm_disconnect"
  | "nothing_changed"
  | "calendar_connected"
  | "connect_cancelled"
  | "connect_failed"
  | "sync_queued"
  | "sync_recent"
  | "messages_on"
  | "messages_off";

export const NOTICES: Record<NoticeCode, Notice> = {
  calendar_added: { tone: "info", text: "Calendar added and read: its events are below." },
  calendar_queued: { tone: "info", text: "Calendar added. Its events appear within a minute." },
  calendar_refused: {
    tone: "error",
    text: "That calendar could not be added: use its secret ICS address (https), and check that it opens.",
  },
  calendar_removed: { tone: "info", text: "Calendar removed." },
  rules_saved: { tone: "info", text: "Rules saved." },
  rules_refused: {
    tone: "error",
    text: "Those rules were not saved: correct the fields marked below.",
  },
  paused: { tone: "info", text: "Paused: Statuspilot leaves your status alone." },
  resumed: { tone: "info", text: "Resumed: your status follows your calendars again." },
  ooo_scheduled: { tone: "info", text: "Out-of-office scheduled." },
  ooo_refused: {
    tone: "error",
    text: "That out-of-office could not be scheduled: pick a last day on or after the first, not in the past.",
  },
  ooo_cancelled: { tone: "info", text: "Out-of-office cancelled." },
  confirm_disconnect: { tone: "error", text: "Tick the box to confirm, then disconnect." },
  nothing_changed: { tone: "info", text: "Nothing was changed." },
  calendar_connected: {
    tone: "info",
    text: "Calendar connected. Its events appear within a minute, and changes arrive as you make them.",
  },
  connect_cancelled: { tone: "info", text: "Nothing was connected." },
  connect_failed: {
    tone: "error",
    text: "The calendar could not be connected. Nothing was changed; try again in a moment.",
  },
  sync_queued: {
    tone: "info",
    text: "Reading every calendar now: your status follows in seconds.",
  },
  sync_recent: {
    tone: "info",
    text: "Your calendars were read less than a minute ago: nothing was read again.",
  },
  messages_on: {
    tone: "info",
    text: "Messages on: Statuspilot messages you once when something breaks.",
  },
  messages_off: { tone: "info", text: "Messages off: the Home tab still shows what broke." },
};

export interface FormCall {
  app: App;
  who: SignedIn;
  form: URLSearchParams;
  revoke: RevokeToken;
}

export interface SettingsForm {
  run(call: FormCall): Promise<NoticeCode | "disconnected" | "signed_out">;
  /** The notice when the use case refuses the input (InvalidInputError). */
  refused: NoticeCode;
  /**
   * The form field a refused input's JSON pointer names. With it, a refused form is answered
   * with the page itself: what was typed kept, each refused field marked (else: a redirect).
   */
  fieldOf?: (pointer: string, form: URLSearchParams, who: SignedIn) => string | undefined;
}

/**
 * A refused form as the page shows it again: the values typed (the CSRF token aside), and each
 * problem beside the field its pointer names. A problem of no field the form sent is
 * `unplaced`: the notice lists it.
 */
export function refusedFormOf(
  action: string,
  form: URLSearchParams,
  error: InvalidInputError,
  fieldOf: (pointer: string) => string | undefined,
): { refused: RefusedForm; unplaced: string[] } {
  const values: Record<string, string> = {};
  for (const [name, value] of form) if (name !== CSRF_FIELD) values[name] ??= value;
  const errors: Record<string, string> = {};
  const unplaced: string[] = [];
  for (const { pointer, message } of error.problems) {
    const field = fieldOf(pointer);
    if (field !== undefined && form.has(field)) errors[field] ??= message;
    else unplaced.push(`${field ?? pointer}: ${message}`);
  }
  return { refused: { action, values, errors }, unplaced };
}

const calendarIdsOf = (who: SignedIn): string[] => who.view.calendars.map((c) => c.id);

const ticked = (form: URLSearchParams, name: string): boolean => form.get(name) === "on";

/** Queues a fresh read of each calendar: rules shape timelines, and a resume re-applies them. */
async function resync({ app, who }: FormCall): Promise<void> {
  for (const source of who.view.calendars) {
    await app.requestSync({ ...who.key, sourceId: source.id, reason: "manual" });
  }
}

/** What each form of the page does (its action path → the use case). */
export const SETTINGS_FORMS: Record<string, SettingsForm> = {
  [SETTINGS_ACTIONS.addCalendar]: {
    refused: "calendar_refused",
    run: async ({ app, who, form }) => {
      const url = form.get(FIELDS.calendarUrl) ?? "";
      const added = await who.door.parts.useCases.addCalendar(who.key, url);
      if (added.synced) return "calendar_added";
      await app.requestSync({ ...who.key, sourceId: added.sourceId, reason: "manual" });
      return "calendar_queued";
    },
  },
  [SETTINGS_ACTIONS.removeCalendar]: {
    refused: "nothing_changed",
    run: async ({ app, who, form }) => {
      const id = form.get(FIELDS.calendarId) ?? "";
      // A connected calendar's push channel is stopped first (issue 14).
      await app.connect?.stopPushes(who.key, id);
      const removed = await who.door.parts.useCases.removeCalendar(who.key, id);
      return removed ? "calendar_removed" : "nothing_changed";
    },
  },
  [SETTINGS_ACTIONS.saveRules]: {
    refused: "rules_refused",
    fieldOf: (pointer, form, who) => rulesFieldOf(pointer, form, calendarIdsOf(who)),
    run: async (call) => {
      const { who, form } = call;
      const rules = rulesFromForm(form, who.view.rules, calendarIdsOf(who));
      await who.door.parts.useCases.saveRules(who.key, rules);
      await resync(call);
      return "rules_saved";
    },
  },
  [SETTINGS_ACTIONS.pause]: {
    refused: "nothing_changed",
    run: async ({ who }) => {
      await who.door.parts.useCases.setPaused(who.key, true);
      return "paused";
    },
  },
  [SETTINGS_ACTIONS.resume]: {
    refused: "nothing_changed",
    run: async (call) => {
      await call.who.door.parts.useCases.setPaused(call.who.key, false);
      await resync(call);
      return "resumed";
    },
  },
  [SETTINGS_ACTIONS.scheduleOoo]: {
    refused: "ooo_refused",
    run: async ({ app, who, form }) => {
      const range = oooDayRange(
        form.get(FIELDS.oooFirstDay) ?? "",
        form.get(FIELDS.oooLastDay) ?? "",
        who.view.tz,
      );
      if (range === undefined) throw new InvalidInputError("not a range of days", "/first_day");
      const text = form.get(FIELDS.oooMessage)?.trim();
      await app.useCases.scheduleOutOfOffice(who.key, { ...range, ...(text ? { text } : {}) });
      return "ooo_scheduled";
    },
  },
  [SETTINGS_ACTIONS.cancelOoo]: {
    refused: "nothing_changed",
    run: async ({ app, who, form }) => {
      const id = form.get(FIELDS.oooEntryId) ?? "";
      const cancelled = id !== "" && (await app.useCases.cancelOutOfOffice(who.key, id));
      return cancelled ? "ooo_cancelled" : "nothing_changed";
    },
  },
  [SETTINGS_ACTIONS.disconnect]: {
    refused: "nothing_changed",
    run: async ({ app, who, form, revoke }) => {
      if (!ticked(form, FIELDS.confirmDisconnect)) return "confirm_disconnect";
      await app.connect?.stopPushes(who.key);
      await who.door.parts.useCases.disconnect(who.key, revoke);
      return "disconnected";
    },
  },
  [SETTINGS_ACTIONS.syncNow]: {
    refused: "nothing_changed",
    run: async ({ app, who }) => {
      const outcome = await app.notify?.syncNow(who.key);
      if (outcome?.kind === "queued") return "sync_queued";
      return outcome?.kind === "recent" ? "sync_recent" : "nothing_changed";
    },
  },
  [SETTINGS_ACTIONS.messages]: {
    refused: "nothing_changed",
    run: async ({ app, who, form }) => {
      const on = form.get(FIELDS.messages) === "on";
      await app.notify?.setDms(who.key, on);
      return on ? "messages_on" : "messages_off";
    },
  },
  [SETTINGS_ACTIONS.signOut]: {
    refused: "nothing_changed",
    // Ends this session only, and deletes nothing: the status keeps following the calendars.
    run: async ({ app, who }) => {
      const end = who.door.sessions.endMark(who.session);
      await who.door.parts.marks.consume(end.id, end.expiresAt, app.clock.now());
      return "signed_out";
    },
  },
};
