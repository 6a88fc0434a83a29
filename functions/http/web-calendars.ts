import { fromEnvironment } from "#lib/app/compose/compose";
import type { AppModules } from "#lib/app/compose/modules";
import { calendarModule, parametersModule, RECONCILER_MODULES } from "#lib/app/compose/modules";
import { type AppSource, httpHandler } from "../shared/http";
import { web } from "../shared/web";

/**
 * The one front-door form that reads a calendar: POST /settings/calendars/add checks the new
 * address and expands that read as the calendar's first sync (issue 28 item 6). It is its own
 * function so that it alone carries the calendar engine (ical.js) and a timeout well above the
 * check's deadline; the web function, which renders every page, carries neither.
 */
export const createHandler = (source: AppSource) => httpHandler(source, web);

export const modules: AppModules = {
  ...RECONCILER_MODULES,
  calendar: calendarModule,
  parameters: parametersModule,
};
export const handler = createHandler(fromEnvironment(modules));
