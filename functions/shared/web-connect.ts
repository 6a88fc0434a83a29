import type { ConnectProvider } from "#lib/app/accounts/providers";
import type { App } from "#lib/app/compose/app";
import { ProviderError } from "#lib/calendar/providers/errors";
import { connectBinding, connectCallbackPath } from "#lib/web/connect";
import { OAuthStateError } from "#lib/web/errors";
import { PATHS } from "#lib/web/pages/view-model";
import { renderErrorPage, renderInstallStateErrorPage } from "../../lib/web/pages/messages";
import type { HttpFn } from "./http";
import { page, redirect } from "./web-replies";
import { signedIn } from "./web-settings";

/**
 * GET /connect/<provider> and its callback: a signed-in person connects a calendar account
 * through the provider's OAuth consent (lib/app/connect-*.ts does the rest: the sealed refresh
 * token on a new source, its first push channel).
 */

const notOffered = () => {
  const shown = renderErrorPage({
    status: 404,
    title: "Not available",
    message: "This calendar provider cannot be connected here.",
  });
  return page(shown.status, shown.html);
};

const providerOf = (app: App, path: string): ConnectProvider | undefined =>
  app.connect?.providers().find((p) => p.path === path);

const callbackUri = (app: App, provider: ConnectProvider): string =>
  new URL(connectCallbackPath(provider.path), app.config.PUBLIC_BASE_URL).href;

/** 302 to the provider's consent page, with a state bound to this session. */
export const connectStart =
  (path: string): HttpFn =>
  async (req, app) => {
    const who = await signedIn(req, app);
    if (who === undefined) return redirect(302, PATHS.install);
    const provider = providerOf(app, path);
    if (provider === undefined || app.connect === undefined) return notOffered();
    const state = who.door.states.issue(connectBinding(provider.path, who.session));
    const url = app.connect.authorizeUrl(provider, {
      redirectUri: callbackUri(app, provider),
      state,
    });
    return redirect(302, url);
  };

/**
 * Spends the state (bound to this session), exchanges the code, stores the connection and opens
 * its push channel, then back to the settings page with the outcome.
 */
export const connectCallback =
  (path: string): HttpFn =>
  async (req, app) => {
    const who = await signedIn(req, app);
    if (who === undefined) return redirect(302, PATHS.install);
    const provider = providerOf(app, path);
    if (provider === undefined || app.connect === undefined) return notOffered();
    try {
      await who.door.states.consume(req.query.state, connectBinding(provider.path, who.session));
    } catch (error: unknown) {
      if (!(error instanceof OAuthStateError)) throw error;
      const refused = renderInstallStateErrorPage(error.code);
      return page(refused.status, refused.html);
    }
    const code = req.query.code;
    if (req.query.error !== undefined || code === undefined) {
      return redirect(302, `${PATHS.settings}?notice=connect_cancelled`);
    }
    try {
      const outcome = await app.connect.complete(provider, who.key, {
        code,
        redirectUri: callbackUri(app, provider),
      });
      await app.requestSync({ ...who.key, sourceId: outcome.sourceId, reason: "manual" });
      app.log.info("calendar connected", {
        ...who.key,
        kind: provider.kind,
        sourceId: outcome.sourceId,
        created: outcome.created,
        push: outcome.push.kind,
      });
      return redirect(302, `${PATHS.settings}?notice=calendar_connected`);
    } catch (error: unknown) {
      if (!(error instanceof ProviderError)) throw error;
      app.log.warn("calendar connect failed", {
        ...who.key,
        kind: provider.kind,
        code: error.code,
      });
      return redirect(302, `${PATHS.settings}?notice=connect_failed`);
    }
  };
