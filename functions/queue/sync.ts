import { fromEnvironment } from "#lib/app/compose/compose";
import { calendarModule, kmsModule, oauthModule, serviceModule } from "#lib/app/compose/modules";
import type { AppSource } from "../shared/app-context";
import { queueHandler } from "../shared/queue";
import { syncQueueMessageSchema } from "../shared/sync-messages";
import { syncOne } from "../shared/workers";

/** SQS sync queue: one source per message (its id claims the source's sync gate), or a poll batch. */
export const createHandler = (source: AppSource) =>
  queueHandler(source, syncQueueMessageSchema, syncOne);

export const handler = createHandler(
  fromEnvironment({
    calendar: calendarModule,
    kms: kmsModule,
    service: serviceModule,
    oauth: oauthModule,
  }),
);
