import { adminOoo } from "../shared/admin-ooo";
import { httpHandler } from "../shared/http";

export { COLLECTION_METHODS, ENTRY_METHODS } from "../shared/admin-ooo";

/** GET/POST /admin/users/{team}/{user}/ooo and DELETE …/ooo/{id} (IAM, or x-api-key locally). */
export const handler = httpHandler(adminOoo);
