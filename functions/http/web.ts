import { httpHandler } from "../shared/http";
import { web } from "../shared/web";

/**
 * The front door: GET /install (to the service's consent page), GET /oauth/callback (the user
 * is created or updated, signed in by a session cookie), GET /settings and the settings page's
 * forms (POST /settings/…, each checking the session and its CSRF token). Server-rendered HTML.
 */
export const handler = httpHandler(web);
