import { handleServiceEvent } from "../../lib/webhooks";
import { httpHandler, toResult } from "../shared/http";

export { ACK_DEADLINE_MS } from "../../lib/webhooks";

/** POST /service/events: the service's Events API endpoint. */
export const handler = httpHandler(async (req, app) =>
  toResult(await handleServiceEvent(req, app)),
);
