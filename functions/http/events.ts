import { handleServiceEvent } from "../../lib/webhooks";
import { httpHandler, replying } from "../shared/http";

export { ACK_DEADLINE_MS } from "../../lib/webhooks";

/** POST /service/events: the service's Events API endpoint. */
export const handler = httpHandler(replying((req, app) => handleServiceEvent(req, app)));
