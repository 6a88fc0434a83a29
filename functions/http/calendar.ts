import { fromEnvironment } from "#lib/app/compose/compose";
import { type AppModules, parametersModule } from "#lib/app/compose/modules";
import { handleGenericHook, handleGooglePush, handleGraphNotification } from "../../lib/webhooks";
import { type AppSource, type HttpRoute, httpHandler, replying, routed } from "../shared/http";

/** The hooks, by route: the table the router dispatches on (a test holds it to routes.ts). */
export const HOOK_ROUTES: readonly HttpRoute[] = [
  { method: "POST", path: "/hooks/google", handler: replying(handleGooglePush) },
  { method: "POST", path: "/hooks/graph", handler: replying(handleGraphNotification) },
  { method: "POST", path: "/hooks/generic/{sourceId}", handler: replying(handleGenericHook) },
];

/**
 * The calendar pushes: each enqueues a re-sync. Routed on the route key, never the decoded path
 * (`/hooks/generic/x%2Fhooks%2Fgraph` ends like the Graph hook's, but it is a generic push).
 */
export const createHandler = (source: AppSource) =>
  httpHandler(
    source,
    routed(HOOK_ROUTES, { notFound: "no calendar hook on this route", byRouteKey: true }),
  );

// No KMS: a push is authenticated by its channel token, and the channel's secret stays sealed.
export const modules: AppModules = { parameters: parametersModule };
export const handler = createHandler(fromEnvironment(modules));
