import { handleServiceEvent } from "../../lib/webhooks";
import { httpHandler, replying } from "../shared/http";
import { eventOnceOf } from "../shared/idempotency";

export { ACK_DEADLINE_MS } from "../../lib/webhooks";

/** POST /service/events: the service's Events API endpoint; each event_id is recorded once. */
export const handler = httpHandler(
  replying((req, app) =>
    handleServiceEvent(req, app, { once: eventOnceOf(app, "service-events") }),
  ),
);
