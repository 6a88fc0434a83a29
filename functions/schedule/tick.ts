import { fromEnvironment } from "#lib/app/compose/compose";
import type { AppModules } from "#lib/app/compose/modules";
import type { AppSource } from "../shared/app-context";
import { scheduleHandler } from "../shared/schedule";
import { tickOnce } from "../shared/workers";

/** Every minute: enqueue each transition due in the next 70 s with its exact-second delay. */
export const createHandler = (source: AppSource) => scheduleHandler(source, tickOnce);

export const modules: AppModules = {};
export const handler = createHandler(fromEnvironment(modules));
