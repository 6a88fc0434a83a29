import { fromEnvironment } from "#lib/app/compose/compose";
import {
  calendarModule,
  kmsModule,
  parametersModule,
  serviceModule,
} from "#lib/app/compose/modules";
import { type AppSource, httpHandler } from "../shared/http";
import { web } from "../shared/web";

/**
 * The front door: GET /install, GET /oauth/callback, GET /settings and its forms (POST
 * /settings/…, each checking the session and its CSRF token). Server-rendered HTML; the calendar
 * engine loads only when a calendar is added (its first read is expanded here).
 */
export const createHandler = (source: AppSource) => httpHandler(source, web);

export const handler = createHandler(
  fromEnvironment({
    calendar: calendarModule,
    kms: kmsModule,
    parameters: parametersModule,
    service: serviceModule,
  }),
);
