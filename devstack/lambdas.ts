import { backgroundFunctions, type FunctionModule, routes } from "#functions/routes";
import type { AppSource } from "./app";
import { functionConfig, readFunctionsConfig } from "./functions-config";
import type { HttpRoute } from "./http-gateway";
import type { LambdaRuntime } from "./runtime";

export type BackgroundFunction = keyof typeof backgroundFunctions;

// biome-ignore lint/complexity/noBannedTypes: handlers are typed per function; the runtime only calls them.
type AnyHandler = Function;

/** Puts something around a function's handler (a meter, an observer), given its name. */
export type HandlerWrapper = (
  functionName: string,
  handler: AnyHandler,
) => AnyHandler | Promise<AnyHandler>;

export interface LocalLambdas {
  /** The HTTP routes, each handler made by its function's factory over the source. */
  routes: HttpRoute[];
  /** Runs a route's handler through the runtime (the gateway's `invoke`). */
  invokeRoute(functionName: string, handler: AnyHandler, event: unknown): Promise<unknown>;
  /** A background function (tick, poll, a queue's worker) as an invoker through the runtime. */
  background<E>(name: BackgroundFunction): (event: E) => Promise<unknown>;
}

/**
 * Every function of serverless.yml as the local runtime runs it: its handler made once (per
 * process, as per container) by its module's factory over `source`, optionally wrapped, and
 * each invocation run by `runtime` with the function's own timeout.
 */
export function localLambdas(options: {
  source: AppSource;
  runtime: LambdaRuntime;
  wrap?: HandlerWrapper;
}): LocalLambdas {
  const functions = readFunctionsConfig();
  const wrap = options.wrap ?? ((_name, handler) => handler);
  const make = (functionName: string, load: () => Promise<FunctionModule>) => async () => ({
    handler: await wrap(functionName, (await load()).createHandler(options.source)),
  });
  const invoke = (functionName: string, handler: AnyHandler, event: unknown) =>
    options.runtime.invoke(
      { name: functionName, timeoutMs: functionConfig(functions, functionName).timeoutMs, handler },
      event,
    );
  return {
    routes: routes.map((route) => ({ ...route, load: make(route.function, route.load) })),
    invokeRoute: invoke,
    background<E>(name: BackgroundFunction) {
      const load = make(name, backgroundFunctions[name]);
      let loaded: Promise<{ handler: AnyHandler }> | undefined;
      return async (event: E): Promise<unknown> => {
        loaded ??= load();
        const { handler } = await loaded;
        return invoke(name, handler, event);
      };
    },
  };
}
