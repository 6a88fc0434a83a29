import type { VNode } from "preact";
import { dateTimeOf } from "./format";
import { PostForm } from "./forms";
import {
  type CalendarView,
  FIELDS,
  PATHS,
  SETTINGS_ACTIONS,
  type SettingsView,
} from "./view-model";

/**
 * What the settings page shows of the Home tab and its messages (issue 26): Sync now, and the
 * switch for the messages that say something broke, with a word when they cannot work yet
 * (the install predates the app's bot: Reconnect adds it).
 */

/** A calendar's health, as the Home tab shows it: its last good read, its next, its error. */
export function CalendarHealthLines(props: {
  calendar: CalendarView;
  tz: string;
  locale?: string;
}): VNode {
  const { calendar: c, tz, locale } = props;
  return (
    <>
      <div class="muted">
        {c.lastReadAt !== undefined
          ? `Last good read ${dateTimeOf(c.lastReadAt, tz, locale)}`
          : "Not read yet"}
        {c.nextReadAt !== undefined && ` · Next read ${dateTimeOf(c.nextReadAt, tz, locale)}`}
      </div>
      {c.problem !== undefined && (
        <div class="problem">
          {c.failingSince !== undefined
            ? `Failing since ${dateTimeOf(c.failingSince, tz, locale)}: ${c.problem}`
            : c.problem}
        </div>
      )}
    </>
  );
}

export function SyncNowForm({ view }: { view: SettingsView }): VNode | null {
  if (view.calendars.length === 0) return null;
  return (
    <PostForm action={SETTINGS_ACTIONS.syncNow} csrfToken={view.csrfToken}>
      <button type="submit">Sync now</button>
    </PostForm>
  );
}

export function MessagesSection({ view }: { view: SettingsView }): VNode | null {
  const home = view.home;
  if (home === undefined) return null;
  return (
    <section aria-labelledby="messages">
      <h2 id="messages">Messages when something breaks</h2>
      <p>
        {home.dmsOff
          ? "Off: Statuspilot does not message you when a calendar or your connection breaks. Its Home tab still shows it."
          : "On: Statuspilot messages you once when a calendar or your connection breaks, with the button that fixes it."}
      </p>
      {home.noBot && (
        <p class="problem">
          Your workspace installed Statuspilot before it had its Home tab and messages: reconnect to
          turn them on.{" "}
          <a class="button" href={PATHS.install}>
            Reconnect
          </a>
        </p>
      )}
      <PostForm action={SETTINGS_ACTIONS.messages} csrfToken={view.csrfToken}>
        <input type="hidden" name={FIELDS.messages} value={home.dmsOff ? "on" : "off"} />
        <button type="submit">{home.dmsOff ? "Turn messages on" : "Turn messages off"}</button>
      </PostForm>
    </section>
  );
}
