import type { VNode } from "preact";
import type { CustomStatus, WorkingHours } from "#lib/core/rules";
import {
  DEFAULT_OFF_HOURS,
  MAX_CUSTOM_PRIORITY,
  MAX_CUSTOM_STATUSES,
  MIN_CUSTOM_PRIORITY,
  WEEKDAYS,
} from "#lib/core/rules";
import { CheckBox, CheckList, PostForm, RadioGroup, Select, TextArea, TextField } from "./forms";
import {
  type CalendarView,
  type CustomStatusView,
  FIELDS,
  PATHS,
  SETTINGS_ACTIONS,
  type SettingsView,
  STATUS_KINDS,
  type WorkingHoursView,
} from "./view-model";

/**
 * The rules form: the built-in kinds, the person's own statuses (each stored one editable or
 * deleted, plus an empty row that adds one), working hours, keep or restore, the calendars to
 * skip and the other switches. One form, one submit: no script needed. lib/web/rules-form.ts
 * reads it back.
 */

const KIND_NAMES = { meeting: "Meetings", focus: "Focus time", ooo: "Out of office" } as const;

const DAY_NAMES = {
  mon: "Monday",
  tue: "Tuesday",
  wed: "Wednesday",
  thu: "Thursday",
  fri: "Friday",
  sat: "Saturday",
  sun: "Sunday",
} as const;

/** What the empty row offers: between meetings (10) and focus time (20). */
const NEW_STATUS_PRIORITY = 15;

const DEFAULT_HOURS: WorkingHoursView = {
  days: ["mon", "tue", "wed", "thu", "fri"],
  start: "09:00",
  end: "17:30",
  ...DEFAULT_OFF_HOURS,
  dnd: false,
};

/** A Do Not Disturb switch, with the way to grant it when the token may not use it. */
function DndToggle(props: { id: string; name: string; checked: boolean; reconnect: boolean }) {
  return (
    <div>
      <CheckBox
        id={props.id}
        name={props.name}
        label="Do Not Disturb while this shows"
        checked={props.checked}
      />
      {props.reconnect && (
        <p class="muted">
          <a href={PATHS.install}>Reconnect to allow Do Not Disturb</a>
          {" (your statuses go on working without it)"}
        </p>
      )}
    </div>
  );
}

const ONLINE_CHOICES = [
  { value: "", label: "Any event" },
  { value: "yes", label: "Only events with a video-call link" },
  { value: "no", label: "Only events without one" },
] as const;

function CustomStatusRow(props: {
  row: number;
  status: CustomStatusView | undefined;
  calendars: readonly CalendarView[];
  reconnect: boolean;
}): VNode {
  const { row, status } = props;
  /** A member's field: its id on the page and its name in the form, both of its row. */
  const field = (member: keyof CustomStatus) => ({
    id: `custom-${row}-${member}`,
    name: FIELDS.custom(row, member),
  });
  return (
    <fieldset>
      <legend>{status === undefined ? "Add a status" : status.name}</legend>
      <TextField {...field("name")} label="Name" value={status?.name ?? ""} maxLength={40} />
      <TextField
        {...field("text")}
        label="Status text"
        value={status?.text ?? ""}
        maxLength={100}
      />
      <TextField
        {...field("emoji")}
        label="Emoji"
        value={status?.emoji ?? ""}
        hint="In colon form, e.g. :fork_and_knife:"
      />
      <TextField
        {...field("priority")}
        label="Priority"
        type="number"
        min={MIN_CUSTOM_PRIORITY}
        max={MAX_CUSTOM_PRIORITY}
        value={String(status?.priority ?? NEW_STATUS_PRIORITY)}
        hint="1 to 99; higher wins. Meetings are 10, focus time 20, out of office 30."
      />
      <TextArea
        {...field("keywords")}
        label="Title keywords"
        value={(status?.keywords ?? []).join("\n")}
        hint="One per line: whole words of the title, any case."
      />
      {props.calendars.length > 0 && (
        <CheckList
          {...field("calendars")}
          legend="Only events of these calendars"
          hint="None ticked: events of every calendar."
          options={props.calendars.map((c) => ({
            value: c.id,
            label: c.label,
            checked: status?.calendars.includes(c.id) === true,
          }))}
        />
      )}
      <Select
        {...field("online")}
        label="Video calls"
        value={status?.online === undefined ? "" : status.online ? "yes" : "no"}
        options={ONLINE_CHOICES}
      />
      <DndToggle {...field("dnd")} checked={status?.dnd === true} reconnect={props.reconnect} />
      {status !== undefined && (
        <CheckBox
          id={`custom-${row}-delete`}
          name={FIELDS.customDelete(row)}
          label={`Delete the status ${status.name}`}
        />
      )}
    </fieldset>
  );
}

function WorkingHoursFields(props: { hours: WorkingHoursView | undefined; reconnect: boolean }) {
  const hours = props.hours ?? DEFAULT_HOURS;
  /** A member's field: its id on the page and its name in the form. */
  const field = (member: keyof WorkingHours) => ({
    id: `working-hours-${member}`,
    name: FIELDS.workingHoursMember(member),
  });
  return (
    <fieldset>
      <legend>Working hours</legend>
      <CheckBox
        id="working-hours"
        name={FIELDS.workingHours}
        label="Show a status outside my working hours"
        checked={props.hours !== undefined}
      />
      <CheckList
        {...field("days")}
        legend="Working days"
        options={WEEKDAYS.map((day) => ({
          value: day,
          label: DAY_NAMES[day],
          checked: hours.days.includes(day),
        }))}
      />
      <TextField {...field("start")} label="Start (HH:MM)" type="time" value={hours.start} />
      <TextField
        {...field("end")}
        label="End (HH:MM)"
        type="time"
        value={hours.end}
        hint="Before the start: the working day ends the next day."
      />
      <TextField
        {...field("text")}
        label="Status text outside them"
        value={hours.text}
        maxLength={100}
      />
      <TextField
        {...field("emoji")}
        label="Emoji outside them"
        value={hours.emoji}
        hint="In colon form, e.g. :crescent_moon:"
      />
      <DndToggle {...field("dnd")} checked={hours.dnd} reconnect={props.reconnect} />
    </fieldset>
  );
}

export function RulesSection({ view }: { view: SettingsView }): VNode {
  const { rules } = view;
  const reconnect = view.dndReconnect === true;
  const custom = rules.custom ?? [];
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
            <DndToggle
              id={`rule-${kind}-dnd`}
              name={FIELDS.ruleDnd(kind)}
              checked={rules.kinds[kind].dnd === true}
              reconnect={reconnect}
            />
          </fieldset>
        ))}
        <h3>Your own statuses</h3>
        <p class="muted">
          An event gets one when it matches every condition you give. Of all the statuses an event
          matches, the highest priority wins.
        </p>
        {custom.map((status, row) => (
          <CustomStatusRow
            key={status.name}
            row={row}
            status={status}
            calendars={view.calendars}
            reconnect={reconnect}
          />
        ))}
        {custom.length < MAX_CUSTOM_STATUSES && (
          <CustomStatusRow
            row={custom.length}
            status={undefined}
            calendars={view.calendars}
            reconnect={reconnect}
          />
        )}
        <WorkingHoursFields hours={rules.workingHours} reconnect={reconnect} />
        <RadioGroup
          id="rule-standing"
          name={FIELDS.standing}
          legend="A status you set yourself"
          value={rules.standing ?? "keep"}
          options={[
            { value: "keep", label: "Keep: a calendar status replaces it" },
            { value: "restore", label: "Restore it when each calendar status ends" },
          ]}
        />
        {view.calendars.length > 0 && (
          <CheckList
            id="rule-skip-calendars"
            name={FIELDS.skipCalendars}
            legend="Calendars whose events never set a status"
            options={view.calendars.map((c) => ({
              value: c.id,
              label: c.label,
              checked: rules.skipCalendars?.includes(c.id) === true,
            }))}
          />
        )}
        <CheckBox
          id="rule-skip-no-guests"
          name={FIELDS.skipNoGuests}
          label="Skip events with nobody but me in them"
          checked={rules.skipNoGuests === true}
        />
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
