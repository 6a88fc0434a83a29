import type { App } from "#lib/app/compose/app";
import { OAuthError } from "#lib/service/oauth-client";
import { OAuthStateError } from "#lib/web/errors";
import { type FrontDoor, frontDoorOf } from "#lib/web/front-door";
import {
  installBindingClearCookie,
  installBindingSetCookie,
  newInstallBinding,
  readInstallBinding,
} from "#lib/web/install-binding";
import { PATHS } from "#lib/web/pages/view-model";
import {
  renderErrorPage,
  renderInstallStateErrorPage,
  renderNothingInstalledPage,
} from "../../lib/web/pages/messages";
import type { HttpFn } from "./http";
import { page, redirect } from "./web-replies";

/**
 * GET /install: 302 to the service's authorize page with a fresh signed state, bound to this
 * browser by a short-lived cookie (no write: the state's single use is recorded at the callback).
 */
export const install: HttpFn = async (_req, app) => {
  const door = await frontDoorOf(app);
  const binding = newInstallBinding();
  const state = door.states.issue(binding);
  return redirect(302, door.authorizeUrl(state), [installBindingSetCookie(binding, door.secure)]);
};

/**
 * GET /oauth/callback: spends the state (400 page when bad, expired or replayed; nothing is
 * written then), exchanges the code, reads the person's zone, creates or updates the user (the
 * token sealed), sets the session cookie and sends the person to their settings page.
 */
export const callback: HttpFn = async (req, app) => {
  const door = await frontDoorOf(app);
  const clear = installBindingClearCookie(door.secure);
  const binding = readInstallBinding(req.cookies, door.secure);
  try {
    await door.states.consume(req.query.state, binding);
  } catch (error: unknown) {
    if (!(error instanceof OAuthStateError)) throw error;
    const refused = renderInstallStateErrorPage(error.code);
    return page(refused.status, refused.html, [clear]);
  }
  if (req.query.error !== undefined || req.query.code === undefined) {
    const cancelled = req.query.error === "access_denied";
    const shown = cancelled
      ? renderNothingInstalledPage()
      : renderErrorPage({
          status: 400,
          title: "Nothing was installed",
          message: "The service did not grant access, so nothing was installed.",
        });
    return page(shown.status, shown.html, [clear]);
  }
  try {
    return await signIn(app, door, req.query.code, clear);
  } catch (error: unknown) {
    if (!(error instanceof OAuthError)) throw error;
    app.log.warn("install failed at the service", { method: error.method, code: error.code });
    const failed = renderErrorPage({
      status: error.kind === "retry" ? 503 : 400,
      title: "Sign-in could not finish",
      message:
        error.kind === "retry"
          ? "The service did not answer. Nothing was changed; try again in a moment."
          : "The service refused the sign-in. Nothing was changed; start again.",
    });
    return page(failed.status, failed.html, [clear]);
  }
};

async function signIn(app: App, door: FrontDoor, code: string, clear: string) {
  const grant = await door.oauth.exchangeCode({ code, redirectUri: door.redirectUri });
  const info = await door.oauth.userInfo(grant.accessToken, grant.user);
  const key = { team: grant.team.id, user: grant.user };
  const outcome = await door.parts.useCases.completeInstall({
    key,
    token: grant.accessToken,
    tz: info.tz,
    scopes: grant.scopes,
    ...(grant.refreshToken !== undefined ? { refreshToken: grant.refreshToken } : {}),
    ...(grant.expiresAt !== undefined ? { tokenExpiresAt: grant.expiresAt } : {}),
  });
  // The team's bot (the Home tab, direct messages): an install from before it was asked for
  // has none, and a reconnect brings it.
  if (grant.bot !== undefined) {
    await app.notify?.recordBot(key.team, grant.bot.accessToken, grant.bot.botUser);
  }
  // A returning user's calendars are read again at once: the timeline is re-applied.
  for (const sourceId of outcome.sourceIds) {
    await app.requestSync({ ...key, sourceId, reason: "manual" });
  }
  app.log.info("user installed", { ...key, created: outcome.created, resumed: outcome.resumed });
  const { setCookie } = door.sessions.issue({ ...key, epoch: outcome.sessionEpoch });
  return redirect(302, PATHS.settings, [setCookie, clear]);
}
