import { fromEnvironment } from "#lib/app/compose/compose";
import { type AppModules, parametersModule, RECONCILER_MODULES } from "#lib/app/compose/modules";
import { adminUsers } from "../shared/admin-users";
import { type AppSource, httpHandler } from "../shared/http";

export { CHANNEL_METHODS, USER_METHODS } from "../shared/admin-users";

/**
 * PUT/GET /admin/users/{team}/{user} and PUT /admin/channels/{channelId}: onboarding on a
 * deployed stack (IAM, or x-api-key locally). A PUT user queues a first sync of every source;
 * a GET never shows the token or source secrets.
 */
export const createHandler = (source: AppSource) => httpHandler(source, adminUsers);

export const modules: AppModules = { ...RECONCILER_MODULES, parameters: parametersModule };
export const handler = createHandler(fromEnvironment(modules));
