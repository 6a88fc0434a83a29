import { SettingsLinkError } from "#lib/web/errors";
import { frontDoorOf } from "#lib/web/front-door";
import { PATHS } from "#lib/web/pages/view-model";
import { renderSettingsLinkErrorPage } from "../../lib/web/pages/messages";
import type { HttpFn } from "./http";
import { page, redirect } from "./web-replies";

/**
 * GET /settings/open?link=…: the Home tab's "Open settings". A genuine, fresh, unspent link of
 * a person whose session epoch it still names signs them in (the session cookie, as an install
 * would set it) and sends them to /settings; any other answers the sign-in page (400), and
 * nobody is signed in.
 */
export const openSettings: HttpFn = async (req, app) => {
  const door = await frontDoorOf(app);
  const refuse = (code: Parameters<typeof renderSettingsLinkErrorPage>[0]) => {
    app.log.warn("settings link refused", { code });
    const refused = renderSettingsLinkErrorPage(code);
    return page(refused.status, refused.html);
  };
  let who: Awaited<ReturnType<typeof door.settingsLinks.consume>>;
  try {
    who = await door.settingsLinks.consume(req.query.link);
  } catch (error: unknown) {
    if (!(error instanceof SettingsLinkError)) throw error;
    return refuse(error.code);
  }
  const key = { team: who.team, user: who.user };
  const view = await door.parts.useCases.selfView(key);
  if (view?.sessionEpoch === undefined || view.sessionEpoch !== who.epoch) return refuse("stale");
  const { setCookie } = door.sessions.issue({ ...key, epoch: who.epoch });
  app.log.info("signed in by a Home tab link", key);
  return redirect(302, PATHS.settings, [setCookie]);
};
