import middy from "@middy/core";
import type { Context, ScheduledEvent } from "aws-lambda";
import * as z from "zod";
import { type App, getApp } from "../../lib/app/root";

/** EventBridge scheduled events; the local scheduler may send a bare `{}`. */
const scheduledEventSchema = z.object({ time: z.string().optional() }).loose();

export function scheduleHandler<R>(fn: (app: App) => Promise<R>) {
  return middy<ScheduledEvent, R, Error, Context>().handler(async (event) => {
    const app = await getApp();
    scheduledEventSchema.parse(event ?? {});
    app.log.resetKeys();
    return fn(app);
  });
}
