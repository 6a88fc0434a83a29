import { type Route, routes } from "#functions/routes";
import type { AnyHandler } from "./requests";
import type { FuzzStack } from "./stack";

/** Every admin route in routes.ts, so routes added later are fuzzed too. */
export const ADMIN_ROUTES = routes.filter((r) => r.path.startsWith("/admin/"));

/** The names of a route's path parameters (`/admin/users/{team}` → `team`). */
export const paramNames = (route: Route): string[] =>
  [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? "");

/** Each admin route's handler, over `stack`'s app. */
export async function adminHandlers(stack: FuzzStack): Promise<Map<Route, AnyHandler>> {
  const handlers = new Map<Route, AnyHandler>();
  for (const route of ADMIN_ROUTES) {
    handlers.set(
      route,
      (await route.load()).createHandler(() => stack.app),
    );
  }
  return handlers;
}
