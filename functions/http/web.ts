import { fromEnvironment } from "#lib/app/compose/compose";
import { type AppModules, parametersModule, RECONCILER_MODULES } from "#lib/app/compose/modules";
import { type AppSource, httpHandler } from "../shared/http";
import { web } from "../shared/web";

/**
 * The front door: GET /install, GET /oauth/callback, GET /settings and its forms (POST
 * /settings/…, each checking the session and its CSRF token). Server-rendered HTML. Adding a
 * calendar, the one form that expands a feed, is served by its own function
 * (functions/http/web-calendars.ts), so this bundle carries no calendar engine.
 */
export const createHandler = (source: AppSource) => httpHandler(source, web);

export const modules: AppModules = { ...RECONCILER_MODULES, parameters: parametersModule };
export const handler = createHandler(fromEnvironment(modules));
