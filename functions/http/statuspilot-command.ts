import { fromEnvironment } from "#lib/app/compose/compose";
import { type AppModules, parametersModule } from "#lib/app/compose/modules";
import { handleStatuspilotCommand } from "../../lib/webhooks";
import { type AppSource, httpHandler, replying } from "../shared/http";

/** POST /service/commands/statuspilot: the `/statuspilot` slash command, a signed form POST. */
export const createHandler = (source: AppSource) =>
  httpHandler(source, replying(handleStatuspilotCommand));

export const modules: AppModules = { parameters: parametersModule };
export const handler = createHandler(fromEnvironment(modules));
