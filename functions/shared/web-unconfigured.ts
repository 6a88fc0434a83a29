import type { App } from "#lib/app/compose/app";
import { missingFrontDoorSettings } from "#lib/web/front-door";
import { renderErrorPage } from "../../lib/web/pages/messages";
import type { HttpFn } from "./http";
import type { HttpResult } from "./http-errors";
import { page } from "./web-replies";

/** Apps already told their front door is not configured: one log line each, not one a hit. */
const reported = new WeakSet<App>();

/**
 * A deployment without the front door's settings (a mistake, not a fault of the request): every
 * web route answers 503 with a page naming the missing variables (never a value), logged once.
 */
export function unconfiguredFrontDoor(app: App): HttpResult | undefined {
  const missing = missingFrontDoorSettings(app.config);
  if (missing.length === 0) return undefined;
  if (!reported.has(app)) {
    reported.add(app);
    app.log.error("the front door is not configured", { missing });
  }
  const shown = renderErrorPage({
    status: 503,
    title: "Statuspilot is not set up yet",
    message: `The front door is not configured: set ${missing.join(", ")}.`,
  });
  return page(shown.status, shown.html);
}

/** `fn`, unless the front door is not configured. */
export const withFrontDoor =
  (fn: HttpFn): HttpFn =>
  async (req, app) =>
    unconfiguredFrontDoor(app) ?? fn(req, app);
