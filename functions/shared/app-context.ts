import type { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import type { Metrics as PowertoolsMetrics } from "@aws-lambda-powertools/metrics";
import { logMetrics } from "@aws-lambda-powertools/metrics/middleware";
import type { MiddlewareObj } from "@middy/core";
import type { Context } from "aws-lambda";
import type { App, AppSource } from "#lib/app/compose/app";

export type { AppSource };

/** The Lambda context once `withApp` ran: the app rides on it, as middy's own `setToContext`. */
interface AppContext extends Context {
  app?: App;
}

/** The app `withApp` put on the context; undefined when building it failed. */
export const appOf = (context: Context): App | undefined => (context as AppContext).app;

/**
 * The Lambda context of the app's current invocation (one at a time per Lambda instance): the
 * idempotency gates take their in-progress deadline from its remaining time.
 */
const invocations = new WeakMap<App, Context>();

/** The context of the invocation `withApp` last started for `app`, if any. */
export const invocationOf = (app: App): Context | undefined => invocations.get(app);

/** The app, for a handler behind `withApp` (which throws before the handler if it cannot build). */
export function appIn(context: Context): App {
  const app = appOf(context);
  if (app === undefined) throw new Error("withApp did not run before this handler");
  return app;
}

/** Powertools' middleware for each logger (one per app, so in practice one per process). */
const injectors = new WeakMap<Logger, MiddlewareObj>();

function injectorOf(app: App | undefined): MiddlewareObj | undefined {
  const logger = app?.log.logger;
  if (logger === undefined) return undefined;
  let injector = injectors.get(logger);
  if (injector === undefined) {
    injector = injectLambdaContext(logger, { resetKeys: true });
    injectors.set(logger, injector);
  }
  return injector;
}

/** Powertools' `logMetrics` for each metrics instance: flushes its EMF when an invocation ends. */
const flushers = new WeakMap<PowertoolsMetrics, MiddlewareObj>();

function flusherOf(app: App | undefined): MiddlewareObj | undefined {
  const metrics = app?.metrics?.powertools;
  if (metrics === undefined) return undefined;
  let flusher = flushers.get(metrics);
  if (flusher === undefined) {
    flusher = logMetrics(metrics);
    flushers.set(metrics, flusher);
  }
  return flusher;
}

/**
 * Gets the app from the function's source (composed once per container) and puts it on the
 * context, then runs Powertools' `injectLambdaContext` on the app's logger: every line of the
 * invocation carries the request id, function and cold start, and the keys a handler appended
 * are dropped afterwards. The logger is the app's (the local stack injects its own), so the
 * middleware is made here. Likewise Powertools' `logMetrics` on the app's metrics: every chain
 * flushes them per invocation.
 */
export function withApp<E, R>(source: AppSource): MiddlewareObj<E, R, Error, Context> {
  return {
    before: async (request) => {
      const app = source();
      (request.context as AppContext).app = app;
      invocations.set(app, request.context);
      app.log.resetKeys();
      await injectorOf(app)?.before?.(request as never);
      await flusherOf(app)?.before?.(request as never);
    },
    after: async (request) => {
      await flusherOf(appOf(request.context))?.after?.(request as never);
      await injectorOf(appOf(request.context))?.after?.(request as never);
    },
    onError: async (request) => {
      await flusherOf(appOf(request.context))?.onError?.(request as never);
      await injectorOf(appOf(request.context))?.onError?.(request as never);
    },
  };
}
