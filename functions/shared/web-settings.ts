import type { App } from "#lib/app/compose/app";
import { InvalidInputError } from "#lib/app/errors";
import { OAuthError } from "#lib/service/oauth-client";
import { connectPath } from "#lib/web/connect";
import { CSRF_FIELD } from "#lib/web/csrf";
import { foreignForm } from "#lib/web/form-origin";
import { type FrontDoor, frontDoorOf } from "#lib/web/front-door";
import {
  rulesView,
  todayEventsView,
  todayView,
  tooLargeProblem,
} from "#lib/web/pages/settings-view";
import {
  type CalendarView,
  type ConnectOffer,
  type Notice,
  PATHS,
  type RefusedForm,
} from "#lib/web/pages/view-model";
import { isCurrentSession } from "#lib/web/session";
import { renderErrorPage, renderSignedOutPage } from "../../lib/web/pages/messages";
import { renderSettingsPage } from "../../lib/web/pages/settings";
import type { HttpFn } from "./http";
import type { HttpRequest } from "./http-event";
import { page, redirect } from "./web-replies";
import {
  NOTICES,
  type NoticeCode,
  refusedFormOf,
  SETTINGS_FORMS,
  type SignedIn,
} from "./web-settings-forms";

/**
 * The signed-in person, or the redirect to `/install`: no cookie, a forged or expired one, one
 * of a user who no longer exists, one from before a disconnect (another session epoch), or one
 * signed out (its end mark).
 */
export async function signedIn(req: HttpRequest, app: App): Promise<SignedIn | undefined> {
  const door = await frontDoorOf(app);
  const read = door.sessions.read(req.cookies);
  if (!read.ok) return undefined;
  const key = { team: read.session.team, user: read.session.user };
  const [view, ended] = await Promise.all([
    door.parts.useCases.selfView(key),
    door.parts.marks.taken(door.sessions.endMark(read.session).id, app.clock.now()),
  ]);
  if (ended) return undefined;
  if (view?.sessionEpoch === undefined) return undefined;
  if (!isCurrentSession(read.session, view.sessionEpoch)) return undefined;
  return { door, session: read.session, key, view };
}

const toInstall = () => redirect(302, PATHS.install);

/** The calendars as the page shows them: a cap the last read reached, said in words. */
const calendarsOf = (who: SignedIn): CalendarView[] =>
  who.view.calendars.map(
    ({ id, label, address, lastReadAt, tooLarge, problem, failingSince, nextReadAt }) => {
      const said = problem ?? (tooLarge !== undefined ? tooLargeProblem(tooLarge) : undefined);
      return {
        id,
        label,
        ...(address !== undefined ? { kind: `ICS feed, ${address}` } : {}),
        ...(lastReadAt !== undefined ? { lastReadAt } : {}),
        ...(said !== undefined ? { problem: said } : {}),
        ...(failingSince !== undefined ? { failingSince } : {}),
        ...(nextReadAt !== undefined ? { nextReadAt } : {}),
      };
    },
  );

/** The calendars with their push states, and the providers that can be connected (issue 14). */
async function connectedCalendars(
  app: App,
  who: SignedIn,
): Promise<{ calendars: CalendarView[]; connectable: ConnectOffer[] }> {
  const connect = app.connect;
  const listed = calendarsOf(who);
  if (connect === undefined) return { calendars: listed, connectable: [] };
  const states = new Map((await connect.pushStates(who.key)).map((p) => [p.sourceId, p]));
  const offers = connect.providers();
  const calendars = listed.map((c): CalendarView => {
    const push = states.get(c.id);
    if (push === undefined) return c;
    const provider = offers.find((p) => p.kind === push.kind);
    const connected = `${provider?.label ?? push.kind} calendar (connected)`;
    const named = who.view.calendars.find((v) => v.id === c.id)?.name;
    return {
      ...c,
      // Its own name and account, once a read found them; else what kind it is.
      label: named ?? connected,
      kind: connected,
      push: {
        state: push.state,
        ...(push.expiresAt !== undefined ? { expiresAt: push.expiresAt } : {}),
      },
      ...(push.state === "reconnect" && provider !== undefined
        ? { reconnectHref: connectPath(provider.path) }
        : {}),
    };
  });
  const connected = new Set([...states.values()].map((p) => p.kind));
  const connectable = offers
    .filter((p) => !connected.has(p.kind))
    .map((p) => ({ label: p.label, href: connectPath(p.path) }));
  return { calendars, connectable };
}

/** GET /settings: the page, or 302 /install without a current session. */
export const settingsPage: HttpFn = async (req, app) => {
  const who = await signedIn(req, app);
  if (who === undefined) return toInstall();
  const code = req.query.notice as NoticeCode | undefined;
  const notice: Notice | undefined =
    code !== undefined && Object.hasOwn(NOTICES, code) ? NOTICES[code] : undefined;
  return page(200, await settingsHtml(app, who, { ...(notice !== undefined ? { notice } : {}) }));
};

/** The settings page of the signed-in person, with a notice or a refused form to show again. */
async function settingsHtml(
  app: App,
  who: SignedIn,
  shown: { notice?: Notice; refused?: RefusedForm },
): Promise<string> {
  const { view, session, door } = who;
  const now = app.clock.now();
  const listed = await connectedCalendars(app, who);
  const names = new Map(listed.calendars.map((c) => [c.id, c.label]));
  const occurrences = await door.parts.useCases.agenda(
    who.key,
    view.calendars.map((c) => c.id),
  );
  return renderSettingsPage({
    csrfToken: door.csrf.tokenFor(session),
    now,
    user: {
      id: view.key.user,
      team: view.key.team,
      tz: view.tz,
      ...(view.rules.locale !== undefined ? { locale: view.rules.locale } : {}),
    },
    connection: view.connection,
    ...listed,
    today: {
      ...todayView(view.timeline, now, view.tz),
      ...(occurrences !== undefined
        ? { events: todayEventsView(occurrences, view.rules, now, view.tz, names) }
        : {}),
    },
    rules: rulesView(view.rules),
    ...(view.dndAllowed ? {} : { dndReconnect: true }),
    paused: view.paused,
    ooo: view.ooo.map((e) => ({ id: e.id, start: e.start, end: e.end, message: e.text })),
    ...shown,
    ...(app.notify !== undefined
      ? { home: { dmsOff: view.dmsOff, noBot: !(await app.notify.hasBot(view.key.team)) } }
      : {}),
  });
}

/**
 * POST /settings/…: one of the page's forms. It must come from our own page (no browser header
 * says otherwise: lib/web/form-origin.ts), the session must be current and the form's CSRF token
 * this session's, or nothing happens (403; 302 /install; 403). Then 303 back to /settings with
 * the outcome; a refused input changes nothing and says why.
 */
export const settingsAction: HttpFn = async (req, app) => {
  const foreign = foreignForm(req.headers, (await frontDoorOf(app)).origin);
  if (foreign !== undefined) {
    app.log.warn("settings form refused: sent from another site", { reason: foreign.reason });
    const refused = renderErrorPage({
      status: 403,
      title: "This form came from another site",
      message: `Nothing was changed. ${foreign.message} Statuspilot takes its settings forms only from its own pages: open your settings page and try again there.`,
    });
    return page(refused.status, refused.html);
  }
  const who = await signedIn(req, app);
  if (who === undefined) return toInstall();
  const form = new URLSearchParams(req.rawBody);
  if (!who.door.csrf.verify(who.session, form.get(CSRF_FIELD) ?? undefined)) {
    app.log.warn("settings form refused: bad CSRF token", { ...who.key });
    const refused = renderErrorPage({
      status: 403,
      title: "This form has expired",
      message: "Nothing was changed. Reload your settings page and try again.",
    });
    return page(refused.status, refused.html);
  }
  const path = req.routeKey.slice(req.routeKey.indexOf(" ") + 1);
  const action = SETTINGS_FORMS[path];
  if (action === undefined) return redirect(303, PATHS.settings);
  try {
    const outcome = await action.run({ app, who, form, revoke: revokeWith(who.door) });
    if (outcome === "disconnected") {
      const done = renderErrorPage({
        status: 200,
        title: "Disconnected",
        message:
          "Statuspilot's access was revoked and every piece of your data was deleted. You can install it again at any time.",
      });
      return page(done.status, done.html, [who.door.sessions.clear()]);
    }
    if (outcome === "signed_out") {
      const done = renderSignedOutPage();
      return page(done.status, done.html, [who.door.sessions.clear()]);
    }
    return redirect(303, `${PATHS.settings}?notice=${outcome}`);
  } catch (error: unknown) {
    if (!(error instanceof InvalidInputError)) throw error;
    if (action.fieldOf === undefined) {
      return redirect(303, `${PATHS.settings}?notice=${action.refused}`);
    }
    // Answered here, not redirected: what was typed stays, each refused field marked.
    const { refused, unplaced } = refusedFormOf(path, form, error, (pointer) =>
      action.fieldOf?.(pointer, form, who),
    );
    const notice = { ...NOTICES[action.refused], details: unplaced };
    return page(422, await settingsHtml(app, who, { notice, refused }));
  }
};

/** auth.revoke; a token the service already killed counts as revoked. */
const revokeWith =
  (door: FrontDoor) =>
  async (token: string): Promise<void> => {
    try {
      await door.oauth.revoke(token);
    } catch (error: unknown) {
      if (error instanceof OAuthError && error.kind === "reauthorize") return;
      throw error;
    }
  };
