import type { VNode } from "preact";
import { dateTimeOf, statusLine, timeOf } from "./format";
import { PostForm, RefusedFormContext, TextField } from "./forms";
import { Layout, renderPage } from "./layout";
import { RulesSection } from "./rules-section";
import { DisconnectSection, OutOfOfficeSection, PauseSection, SignOutForm } from "./settings-forms";
import { CalendarHealthLines, MessagesSection, SyncNowForm } from "./settings-home";
import { TodayEvents } from "./today-events";
import {
  type CalendarView,
  type ConnectionState,
  FIELDS,
  type Notice,
  PATHS,
  SETTINGS_ACTIONS,
  type SettingsView,
  type StatusView,
  type TodayView,
} from "./view-model";

/** The settings page: a pure function of its view model; works without JavaScript. */
export function SettingsPage({ view }: { view: SettingsView }): VNode {
  const { tz, locale } = view.user;
  return (
    <Layout title="Settings">
      <h1>Statuspilot</h1>
      <p class="muted">
        {view.user.name !== undefined ? `Signed in as ${view.user.name}. ` : ""}
        {`Times are shown in ${tz}.`}
      </p>
      <SignOutForm view={view} />
      {view.notice && <NoticeLine notice={view.notice} />}
      <ConnectionSection state={view.connection} />
      <TodaySection
        today={view.today}
        now={view.now}
        tz={tz}
        locale={locale}
        paused={view.paused}
      />
      <CalendarsSection view={view} />
      <MessagesSection view={view} />
      <RulesSection view={view} />
      <PauseSection view={view} />
      <OutOfOfficeSection view={view} />
      <DisconnectSection view={view} />
    </Layout>
  );
}

function NoticeLine({ notice }: { notice: Notice }): VNode {
  return (
    <div class={notice.tone === "error" ? "notice error" : "notice"} role="status">
      {notice.text}
      {notice.details !== undefined && notice.details.length > 0 && (
        <ul>
          {notice.details.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The page; a refused form (`view.refused`) shows again as typed, its bad fields marked. */
export const renderSettingsPage = (view: SettingsView): string =>
  renderPage(
    <RefusedFormContext.Provider value={view.refused}>
      <SettingsPage view={view} />
    </RefusedFormContext.Provider>,
  );

const CONNECTION_TEXT: Record<ConnectionState, string> = {
  connected: "Connected: Statuspilot can set your status.",
  revoked:
    "Disconnected: the workspace revoked Statuspilot's access, so your status is not being set. Reconnect to resume.",
  expired:
    "Disconnected: Statuspilot's access expired, so your status is not being set. Reconnect to resume.",
};

function ConnectionSection({ state }: { state: ConnectionState }): VNode {
  return (
    <section aria-labelledby="connection">
      <h2 id="connection">Connection</h2>
      <p class={state === "connected" ? undefined : "problem"}>{CONNECTION_TEXT[state]}</p>
      {/* A link, not a form: /install redirects to the service, which a form-action CSP forbids. */}
      {state !== "connected" && (
        <a class="button" href={PATHS.install}>
          Reconnect
        </a>
      )}
    </section>
  );
}

const statusText = (s: StatusView): string => statusLine(s);

function TodaySection(props: {
  today: TodayView;
  now: number;
  tz: string;
  locale: string | undefined;
  paused: boolean;
}): VNode {
  const { today, now, tz, locale } = props;
  const time = (at: number) => timeOf(at, tz, locale);
  return (
    <section aria-labelledby="today">
      <h2 id="today">Today</h2>
      {props.paused && <p class="problem">Paused: nothing below is applied until you resume.</p>}
      <p>
        {"Now: "}
        <span class="now">
          {today.current === undefined
            ? "no status"
            : `${statusText(today.current)}${today.current.until !== undefined ? ` until ${time(today.current.until)}` : ""}`}
        </span>
      </p>
      <p>
        {"Next change: "}
        {today.next === undefined
          ? "none planned"
          : `${dateTimeOf(today.next.at, tz, locale)}, ${today.next.status === undefined ? "status cleared" : statusText(today.next.status)}`}
      </p>
      {today.blocks.length === 0 ? (
        <p class="muted">Nothing on your calendars today.</p>
      ) : (
        <ul class="plain">
          {today.blocks.map((b) => {
            const isNow = b.start <= now && now < b.end;
            return (
              <li
                key={`${b.start}-${b.kind}`}
                class={isNow ? "now" : undefined}
                aria-current={isNow ? "time" : undefined}
              >
                {`${time(b.start)}–${time(b.end)} ${statusText(b)}`}
                {isNow && " (now)"}
              </li>
            );
          })}
        </ul>
      )}
      {today.events !== undefined && <TodayEvents events={today.events} tz={tz} locale={locale} />}
    </section>
  );
}

function CalendarsSection({ view }: { view: SettingsView }): VNode {
  const { tz, locale } = view.user;
  return (
    <section aria-labelledby="calendars">
      <h2 id="calendars">Calendars</h2>
      {view.calendars.length === 0 ? (
        <p class="muted">No calendar yet. Add one below.</p>
      ) : (
        <ul class="plain">
          {view.calendars.map((c: CalendarView) => (
            <li key={c.id}>
              <div>{c.label}</div>
              {c.kind !== undefined && <div class="muted">{c.kind}</div>}
              <CalendarHealthLines calendar={c} tz={tz} locale={locale} />
              {c.push !== undefined && <PushLine push={c.push} tz={tz} locale={locale} />}
              {c.reconnectHref !== undefined && (
                <a class="button" href={c.reconnectHref}>
                  Reconnect
                </a>
              )}
              <PostForm action={SETTINGS_ACTIONS.removeCalendar} csrfToken={view.csrfToken}>
                <input type="hidden" name={FIELDS.calendarId} value={c.id} />
                <button type="submit" class="quiet" aria-label={`Remove ${c.label}`}>
                  Remove
                </button>
              </PostForm>
            </li>
          ))}
        </ul>
      )}
      <SyncNowForm view={view} />
      {(view.connectable ?? []).map((offer) => (
        <p key={offer.href}>
          <a class="button" href={offer.href}>
            Connect {offer.label}
          </a>
        </p>
      ))}
      <PostForm action={SETTINGS_ACTIONS.addCalendar} csrfToken={view.csrfToken}>
        <TextField
          id="calendar-url"
          name={FIELDS.calendarUrl}
          label="Secret address of a calendar (iCal format)"
          type="url"
          required
          placeholder="https://…/basic.ics"
          maxLength={2048}
          hint="It is read once before it is saved, and never shown again."
        />
        <button type="submit">Add calendar</button>
      </PostForm>
    </section>
  );
}

/** How a connected calendar's push channel is doing, and until when. */
function PushLine(props: {
  push: NonNullable<CalendarView["push"]>;
  tz: string;
  locale: string | undefined;
}): VNode {
  const { push, tz, locale } = props;
  const until =
    push.expiresAt !== undefined ? ` until ${dateTimeOf(push.expiresAt, tz, locale)}` : "";
  const words = {
    none: "Changes: read every few minutes (no push channel yet)",
    live: `Changes: pushed as they happen${until}`,
    renewing: `Changes: pushed as they happen; the channel is being renewed${until}`,
    lapsed: "Changes: the push channel lapsed and is being repaired",
    reconnect: "This calendar's account must be connected again",
  } as const;
  return (
    <div class={push.state === "lapsed" || push.state === "reconnect" ? "problem" : "muted"}>
      {words[push.state]}
    </div>
  );
}
