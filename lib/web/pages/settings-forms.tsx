import type { VNode } from "preact";
import { isoDateOf, periodOf } from "./format";
import { CheckBox, PostForm, TextArea, TextField } from "./forms";
import { FIELDS, SETTINGS_ACTIONS, type SettingsView, STATUS_KINDS } from "./view-model";

/** The sections of the settings page that change something: rules, pause, out-of-office, leave. */

const KIND_NAMES = { meeting: "Meetings", focus: "Focus time", ooo: "Out of office" } as const;

export function RulesSection({ view }: { view: SettingsView }): VNode {
  const { rules } = view;
  return (
    <section aria-labelledby="rules">
      <h2 id="rules">Rules</h2>
      <PostForm action={SETTINGS_ACTIONS.saveRules} csrfToken={view.csrfToken}>
        {STATUS_KINDS.map((kind) => (
          <fieldset key={kind}>
            <legend>{KIND_NAMES[kind]}</legend>
            <TextField
              id={`rule-${kind}-text`}
              name={FIELDS.ruleText(kind)}
              label="Status text"
              value={rules.kinds[kind].text}
              required
              maxLength={100}
            />
            <TextField
              id={`rule-${kind}-emoji`}
              name={FIELDS.ruleEmoji(kind)}
              label="Emoji"
              value={rules.kinds[kind].emoji}
              required
              hint="In colon form, e.g. :palm_tree:"
            />
            <TextArea
              id={`rule-${kind}-keywords`}
              name={FIELDS.ruleKeywords(kind)}
              label="Title keywords"
              value={rules.kinds[kind].keywords.join("\n")}
              hint="One per line. An event whose title contains one gets this status."
            />
          </fieldset>
        ))}
        <CheckBox
          id="rule-show-titles"
          name={FIELDS.showTitles}
          label="Show event titles instead of the status text (never for private events)"
          checked={rules.showTitles}
        />
        <CheckBox
          id="rule-skip-tentative"
          name={FIELDS.skipTentative}
          label="Skip tentative events"
          checked={rules.skipTentative}
        />
        <button type="submit">Save rules</button>
      </PostForm>
    </section>
  );
}

export function PauseSection({ view }: { view: SettingsView }): VNode {
  return (
    <section aria-labelledby="pause">
      <h2 id="pause">Pause</h2>
      {view.paused ? (
        <PostForm action={SETTINGS_ACTIONS.resume} csrfToken={view.csrfToken}>
          <p>Paused: Statuspilot leaves your status alone.</p>
          <button type="submit">Resume</button>
        </PostForm>
      ) : (
        <PostForm action={SETTINGS_ACTIONS.pause} csrfToken={view.csrfToken}>
          <p>Running: your status follows your calendars.</p>
          <button type="submit">Pause</button>
        </PostForm>
      )}
    </section>
  );
}

export function OutOfOfficeSection({ view }: { view: SettingsView }): VNode {
  const { tz, locale } = view.user;
  const today = isoDateOf(view.now, tz);
  return (
    <section aria-labelledby="ooo">
      <h2 id="ooo">Out of office</h2>
      {view.ooo.length === 0 ? (
        <p class="muted">Nothing scheduled.</p>
      ) : (
        <ul class="plain">
          {view.ooo.map((entry) => (
            <li key={entry.id}>
              <div>{periodOf(entry.start, entry.end, tz, view.now, locale)}</div>
              {entry.message !== undefined && <div class="muted">{entry.message}</div>}
              <PostForm action={SETTINGS_ACTIONS.cancelOoo} csrfToken={view.csrfToken}>
                <input type="hidden" name={FIELDS.oooEntryId} value={entry.id} />
                <button type="submit" class="quiet">
                  Cancel
                </button>
              </PostForm>
            </li>
          ))}
        </ul>
      )}
      <PostForm action={SETTINGS_ACTIONS.scheduleOoo} csrfToken={view.csrfToken}>
        <TextField
          id="ooo-first-day"
          name={FIELDS.oooFirstDay}
          label="First day away"
          type="date"
          value={today}
          required
          hint={`Whole days in ${tz}.`}
        />
        <TextField
          id="ooo-last-day"
          name={FIELDS.oooLastDay}
          label="Last day away"
          type="date"
          value={today}
          required
        />
        <TextField
          id="ooo-message"
          name={FIELDS.oooMessage}
          label="Message (optional)"
          maxLength={100}
        />
        <button type="submit">Schedule</button>
      </PostForm>
    </section>
  );
}

export function DisconnectSection({ view }: { view: SettingsView }): VNode {
  return (
    <section aria-labelledby="disconnect">
      <h2 id="disconnect">Disconnect and delete my data</h2>
      <p>
        Revokes Statuspilot's access to your account and deletes everything it keeps about you:
        calendars, rules, schedule and timeline.
      </p>
      <PostForm action={SETTINGS_ACTIONS.disconnect} csrfToken={view.csrfToken}>
        <CheckBox
          id="disconnect-confirm"
          name={FIELDS.confirmDisconnect}
          label="I understand this cannot be undone"
          required
        />
        <button type="submit" class="danger">
          Disconnect and delete my data
        </button>
      </PostForm>
    </section>
  );
}

/** Ends this browser's session only; deletes nothing (disconnecting is the section above). */
export function SignOutForm({ view }: { view: SettingsView }): VNode {
  return (
    <PostForm action={SETTINGS_ACTIONS.signOut} csrfToken={view.csrfToken}>
      <button type="submit">Sign out</button>
    </PostForm>
  );
}
