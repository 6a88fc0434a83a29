import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { isFrontDoorRoute, type Route, routes } from "#functions/routes";
import type { App } from "#lib/app/compose/app";
import { frontDoorOf } from "#lib/web/front-door";
import { installBindingSetCookie, newInstallBinding } from "#lib/web/install-binding";
import type { ALICE, BOB } from "./stack";
import type { NoOp } from "./verdict";

/** The front door's routes (routes.ts's `web` and `webCalendars` functions). */
export const webRoutes: Route[] = routes.filter((r) => isFrontDoorRoute(r));
export const isWebRoute = isFrontDoorRoute;
/** A settings form: every POST of the front door writes when it is let through. */
export const isMutatingWebRoute = (r: Route): boolean => isWebRoute(r) && r.method === "POST";

const headerOf = (res: APIGatewayProxyStructuredResultV2, name: string): string =>
  String(Object.entries(res.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1] ?? "");

/** Where a redirect goes, "" when the answer is not one. */
export const locationOf = (res: APIGatewayProxyStructuredResultV2): string =>
  headerOf(res, "location");

/** A redirect to the install page: how the front door refuses a request without a session. */
export const isToInstall = (res: APIGatewayProxyStructuredResultV2): boolean =>
  (res.statusCode === 302 || res.statusCode === 303) && locationOf(res) === "/install";

/**
 * The answers of a web route that change nothing: a redirect to /install (no session), and on
 * GET /install the redirect to the service's consent page (the state is only spent later), and
 * on GET /settings a signed-in person's page (it only reads).
 */
export const webNoOp =
  (route: Route): NoOp =>
  (res) => {
    if (isToInstall(res)) return "no session: sent to /install";
    if (route.method === "GET" && route.path === "/install" && res.statusCode === 302) {
      return "install: sent to the consent page, nothing written";
    }
    if (route.method === "GET" && route.path === "/settings" && res.statusCode === 200) {
      return "the settings page: read only";
    }
    return undefined;
  };

/** A signed-in person's cookie (as the browser sends it back) and their page's CSRF token. */
export interface Credentials {
  cookie: string;
  csrf: string;
}

/** Signs `who` in as the OAuth callback would, with the epoch their install gave them. */
export async function credentialsOf(
  app: App,
  who: typeof ALICE | typeof BOB,
): Promise<Credentials> {
  const door = await frontDoorOf(app);
  const view = await door.parts.useCases.selfView(who);
  if (view?.sessionEpoch === undefined) throw new Error(`${who.user} has no session epoch`);
  const { session, setCookie } = door.sessions.issue({ ...who, epoch: view.sessionEpoch });
  const [pair = ""] = setCookie.split(";");
  return { cookie: pair, csrf: door.csrf.tokenFor(session) };
}

/** The session cookie's name under https, and the install binding's. */
export const SESSION_COOKIE_NAME = "__Host-statuspilot_session";

/**
 * Install states as GET /install issues them, each bound to a browser by its cookie: `fresh`
 * (good once), `expired` (issued 11 minutes ago) and `replayed` (already spent, at setup).
 */
export async function installStates(app: App, clock: { now(): number; set(ms: number): void }) {
  const door = await frontDoorOf(app);
  const bound = () => {
    const binding = newInstallBinding();
    const [cookie = ""] = installBindingSetCookie(binding, true).split(";");
    return { binding, cookie, state: door.states.issue(binding) };
  };
  const now = clock.now();
  clock.set(now - 11 * 60_000);
  const expired = bound();
  clock.set(now);
  const replayed = bound();
  await door.states.consume(replayed.state, replayed.binding);
  return { fresh: bound, expired, replayed };
}
