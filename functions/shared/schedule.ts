import { parser } from "@aws-lambda-powertools/parser/middleware";
import middy, { type MiddlewareObj } from "@middy/core";
import type { Context, ScheduledEvent } from "aws-lambda";
import * as z from "zod";
import type { App } from "#lib/app/compose/app";
import { type AppSource, appIn, withApp } from "./app-context";

/** EventBridge scheduled events; the local scheduler may send a bare `{}` (or nothing). */
const scheduledEventSchema = z.object({ time: z.string().optional() }).loose().nullish();

/** The middy chain the scheduled functions share: app and Lambda context, a checked event. */
export function scheduleHandler<R>(source: AppSource, fn: (app: App) => Promise<R>) {
  return middy<ScheduledEvent, R, Error, Context>()
    .use(withApp(source))
    .use(parser({ schema: scheduledEventSchema }) as unknown as MiddlewareObj<ScheduledEvent, R>)
    .handler(async (_event, context) => {
      const app = appIn(context);
      return fn(app);
    });
}
