import { scheduleHandler } from "../shared/schedule";

/** Every minute: enqueue each transition due in the next 70 s with its exact-second delay. */
export const handler = scheduleHandler(async (app) => {
  const enqueued = await app.useCases.tick();
  app.log.info("tick", { enqueued });
  return { enqueued };
});
