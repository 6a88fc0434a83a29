import { fromEnvironment } from "#lib/app/compose/compose";
import { type AppModules, parametersModule, RECONCILER_MODULES } from "#lib/app/compose/modules";
import { handleServiceEvent } from "../../lib/webhooks";
import { type AppSource, httpHandler, replying } from "../shared/http";
import { eventOnceOf } from "../shared/idempotency";

export { ACK_DEADLINE_MS } from "../../lib/webhooks";

/** POST /service/events: the service's Events API endpoint; each event_id is recorded once. */
export const createHandler = (source: AppSource) =>
  httpHandler(
    source,
    replying((req, app) =>
      handleServiceEvent(req, app, { once: eventOnceOf(app, "service-events") }),
    ),
  );

export const modules: AppModules = { ...RECONCILER_MODULES, parameters: parametersModule };
export const handler = createHandler(fromEnvironment(modules));
