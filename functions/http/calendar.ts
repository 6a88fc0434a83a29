import { handleCalendarPush } from "../../lib/webhooks";
import { httpHandler, toResult } from "../shared/http";

/** POST /hooks/google, /hooks/graph, /hooks/generic/{sourceId}: each push enqueues a re-sync. */
export const handler = httpHandler(async (req, app) =>
  toResult(await handleCalendarPush(req, app)),
);
