import { fromEnvironment } from "#lib/app/compose/compose";
import { type AppModules, parametersModule } from "#lib/app/compose/modules";
import { handleInteraction } from "../../lib/webhooks";
import { type AppSource, httpHandler, replying } from "../shared/http";

/**
 * POST /service/interactive: clicks on the buttons of the Home tab and of Statuspilot's
 * messages, signed form posts (`payload=`), answered at once; the work is queued.
 */
export const createHandler = (source: AppSource) =>
  httpHandler(source, replying(handleInteraction));

export const modules: AppModules = { parameters: parametersModule };
export const handler = createHandler(fromEnvironment(modules));
