import { fromEnvironment } from "#lib/app/compose/compose";
import type { AppModules } from "#lib/app/compose/modules";
import { calendarModule, parametersModule, RECONCILER_MODULES } from "#lib/app/compose/modules";
import type { AppSource } from "../shared/app-context";
import { queueHandler } from "../shared/queue";
import { syncQueueMessageSchema } from "../shared/sync-messages";
import { syncOne } from "../shared/workers";

/** SQS sync queue: one source per message (its id claims the source's sync gate), or a poll batch. */
export const createHandler = (source: AppSource) =>
  queueHandler(source, syncQueueMessageSchema, syncOne);

export const modules: AppModules = {
  ...RECONCILER_MODULES,
  calendar: calendarModule,
  // A connected calendar's client secret (its access token's refresh), and the signing secret
  // a push channel's upkeep makes its token from.
  parameters: parametersModule,
};
export const handler = createHandler(fromEnvironment(modules));
