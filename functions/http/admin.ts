import { fromEnvironment } from "#lib/app/compose/compose";
import { type AppModules, RECONCILER_MODULES } from "#lib/app/compose/modules";
import { adminOoo } from "../shared/admin-ooo";
import { type AppSource, httpHandler } from "../shared/http";

export { COLLECTION_METHODS, ENTRY_METHODS } from "../shared/admin-ooo";

/** GET/POST /admin/users/{team}/{user}/ooo and DELETE …/ooo/{id} (IAM, or x-api-key locally). */
export const createHandler = (source: AppSource) => httpHandler(source, adminOoo);

export const modules: AppModules = RECONCILER_MODULES;
export const handler = createHandler(fromEnvironment(modules));
