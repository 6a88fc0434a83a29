import { fromEnvironment } from "#lib/app/compose/compose";
import { type AppModules, parametersModule } from "#lib/app/compose/modules";
import { handleOooCommand } from "../../lib/webhooks";
import { type AppSource, httpHandler, replying } from "../shared/http";

/** POST /service/commands/ooo: the `/ooo` slash command, a signed form POST. */
export const createHandler = (source: AppSource) => httpHandler(source, replying(handleOooCommand));

export const modules: AppModules = { parameters: parametersModule };
export const handler = createHandler(fromEnvironment(modules));
