import { CONNECT_PROVIDERS } from "#lib/app/accounts/providers";
import { connectCallbackPath, connectPath } from "#lib/web/connect";
import { CALLBACK_PATH } from "#lib/web/front-door";
import { PATHS, SETTINGS_ACTIONS, SETTINGS_LINK_PATH } from "#lib/web/pages/view-model";
import { type HttpFn, type HttpRoute, methodsAt, routed } from "./http";
import { connectCallback, connectStart } from "./web-connect";
import { callback, install } from "./web-install";
import { settingsAction, settingsPage } from "./web-settings";
import { openSettings } from "./web-settings-link";
import { withFrontDoor } from "./web-unconfigured";

/** The front door's routes: the install flow, the settings page and each of its forms. */
export const WEB_ROUTES: HttpRoute[] = [
  { method: "GET", path: PATHS.install, handler: withFrontDoor(install) },
  { method: "GET", path: CALLBACK_PATH, handler: withFrontDoor(callback) },
  { method: "GET", path: PATHS.settings, handler: withFrontDoor(settingsPage) },
  // The Home tab's one-time "Open settings" link (issue 26).
  { method: "GET", path: SETTINGS_LINK_PATH, handler: withFrontDoor(openSettings) },
  ...Object.values(SETTINGS_ACTIONS).map(
    (path): HttpRoute => ({ method: "POST", path, handler: withFrontDoor(settingsAction) }),
  ),
  // Calendars connected through OAuth (issue 14): one pair of routes per provider.
  ...CONNECT_PROVIDERS.flatMap((p): HttpRoute[] => [
    { method: "GET", path: connectPath(p.path), handler: withFrontDoor(connectStart(p.path)) },
    {
      method: "GET",
      path: connectCallbackPath(p.path),
      handler: withFrontDoor(connectCallback(p.path)),
    },
  ]),
];

/** The methods served at a path (a test holds them to routes.ts). */
export const webMethodsAt = (path: string): string[] => methodsAt(WEB_ROUTES, path);

/** GET /install, GET /oauth/callback, GET /settings and the settings page's POST forms. */
export const web: HttpFn = routed(WEB_ROUTES, { notFound: "no page here" });
