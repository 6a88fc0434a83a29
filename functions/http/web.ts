import { fromEnvironment } from "#lib/app/compose/compose";
import { kmsModule, parametersModule, serviceModule } from "#lib/app/compose/modules";
import { type AppSource, httpHandler } from "../shared/http";
import { web } from "../shared/web";

/**
 * The front door: GET /install (to the service's consent page), GET /oauth/callback (the user
 * is created or updated, signed in by a session cookie), GET /settings and the settings page's
 * forms (POST /settings/…, each checking the session and its CSRF token). Server-rendered HTML.
 */
export const createHandler = (source: AppSource) => httpHandler(source, web);

export const handler = createHandler(
  fromEnvironment({ kms: kmsModule, parameters: parametersModule, service: serviceModule }),
);
