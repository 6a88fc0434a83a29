import { adminUsers } from "../shared/admin-users";
import { httpHandler } from "../shared/http";

export { CHANNEL_METHODS, USER_METHODS } from "../shared/admin-users";

/**
 * PUT/GET /admin/users/{team}/{user} and PUT /admin/channels/{channelId}: onboarding on a
 * deployed stack (IAM, or x-api-key locally). A PUT user queues a first sync of every source;
 * a GET never shows the token or source secrets.
 */
export const handler = httpHandler(adminUsers);
