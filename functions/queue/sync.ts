import { fromEnvironment } from "../../lib/app/compose";
import { calendarModule, kmsModule, oauthModule, serviceModule } from "../../lib/app/modules";
import type { AppSource } from "../shared/app-context";
import { queueHandler, syncMessageSchema } from "../shared/queue";
import { syncOne } from "../shared/workers";

/** SQS sync queue: re-fetch, expand and apply one calendar source per message. */
export const createHandler = (source: AppSource) =>
  queueHandler(source, syncMessageSchema, syncOne);

export const handler = createHandler(
  fromEnvironment({
    calendar: calendarModule,
    kms: kmsModule,
    service: serviceModule,
    oauth: oauthModule,
  }),
);
