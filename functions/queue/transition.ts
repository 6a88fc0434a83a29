import { fromEnvironment } from "#lib/app/compose/compose";
import { botModule, kmsModule, oauthModule, serviceModule } from "#lib/app/compose/modules";
import type { AppSource } from "../shared/app-context";
import { transitionQueueHandler } from "../shared/queue";
import { transitionOne } from "../shared/transition-worker";

/** SQS transition queue: reconcile each user at (about) the second its message was due. */
export const createHandler = (source: AppSource) => transitionQueueHandler(source, transitionOne);

export const handler = createHandler(
  fromEnvironment({
    kms: kmsModule,
    service: serviceModule,
    oauth: oauthModule,
    // The Home tab and messages. No SSM: its settings links are stored grants, not signed.
    bot: botModule,
  }),
);
