import { fromEnvironment } from "#lib/app/compose/compose";
import type { AppSource } from "../shared/app-context";
import { scheduleHandler } from "../shared/schedule";
import { tickOnce } from "../shared/workers";

/** Every minute: enqueue each transition due in the next 70 s with its exact-second delay. */
export const createHandler = (source: AppSource) => scheduleHandler(source, tickOnce);

export const handler = createHandler(fromEnvironment({}));
