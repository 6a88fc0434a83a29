import { fromEnvironment } from "#lib/app/compose/compose";
import { type AppModules, botModule, RECONCILER_MODULES } from "#lib/app/compose/modules";
import type { AppSource } from "../shared/app-context";
import { transitionQueueHandler } from "../shared/queue";
import { transitionOne } from "../shared/transition-worker";

/** SQS transition queue: reconcile each user at (about) the second its message was due. */
export const createHandler = (source: AppSource) => transitionQueueHandler(source, transitionOne);

export const modules: AppModules = {
  ...RECONCILER_MODULES,
  // The Home tab and messages. No SSM: its settings links are stored grants, not signed.
  bot: botModule,
};
export const handler = createHandler(fromEnvironment(modules));
