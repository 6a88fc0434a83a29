import { fromEnvironment } from "#lib/app/compose/compose";
import type { AppModules } from "#lib/app/compose/modules";
import type { AppSource } from "../shared/app-context";
import { scheduleHandler } from "../shared/schedule";
import { pollDue } from "../shared/workers";

/** Every few minutes: enqueue a check of every source whose poll slot the last run ended. */
export const createHandler = (source: AppSource) => scheduleHandler(source, pollDue);

export const modules: AppModules = {};
export const handler = createHandler(fromEnvironment(modules));
