import type { AppSource } from "#lib/app/compose/app";

/**
 * A function's handler module: the deployed `handler` (its App from the environment) and the
 * factory that makes the same handler over another source (the local stack's, a test's).
 */
export interface FunctionModule {
  // biome-ignore lint/complexity/noBannedTypes: the contract hands back whatever middy built.
  handler: Function;
  // biome-ignore lint/complexity/noBannedTypes: likewise.
  createHandler: (source: AppSource) => Function;
}

/**
 * Every HTTP API route, its serverless.yml function and its handler module. The local stack
 * serves these; a test proves serverless.yml declares exactly the same routes.
 */
export interface Route {
  method: "GET" | "POST" | "DELETE" | "PUT";
  /** API Gateway v2 route key path. */
  path: string;
  /** The function's name in serverless.yml. */
  function: string;
  load: () => Promise<FunctionModule>;
}

const events = () => import("./http/events");
const oooCommand = () => import("./http/ooo-command");
const statuspilotCommand = () => import("./http/statuspilot-command");
const calendar = () => import("./http/calendar");
const admin = () => import("./http/admin");
const adminUsers = () => import("./http/admin-users");
const health = () => import("./http/health");
const web = () => import("./http/web");
const webCalendars = () => import("./http/web-calendars");
const interactive = () => import("./http/interactive");

export const routes: Route[] = [
  { method: "POST", path: "/service/events", function: "serviceEvents", load: events },
  {
    method: "POST",
    path: "/service/interactive",
    function: "serviceInteractive",
    load: interactive,
  },
  { method: "POST", path: "/service/commands/ooo", function: "oooCommand", load: oooCommand },
  {
    method: "POST",
    path: "/service/commands/statuspilot",
    function: "statuspilotCommand",
    load: statuspilotCommand,
  },
  { method: "POST", path: "/hooks/google", function: "calendarHooks", load: calendar },
  { method: "POST", path: "/hooks/graph", function: "calendarHooks", load: calendar },
  { method: "POST", path: "/hooks/generic/{sourceId}", function: "calendarHooks", load: calendar },
  { method: "GET", path: "/admin/users/{team}/{user}/ooo", function: "adminOoo", load: admin },
  { method: "POST", path: "/admin/users/{team}/{user}/ooo", function: "adminOoo", load: admin },
  {
    method: "DELETE",
    path: "/admin/users/{team}/{user}/ooo/{id}",
    function: "adminOoo",
    load: admin,
  },
  { method: "PUT", path: "/admin/users/{team}/{user}", function: "adminUsers", load: adminUsers },
  { method: "GET", path: "/admin/users/{team}/{user}", function: "adminUsers", load: adminUsers },
  {
    method: "PUT",
    path: "/admin/channels/{channelId}",
    function: "adminUsers",
    load: adminUsers,
  },
  { method: "GET", path: "/health", function: "health", load: health },
  // The front door (functions/shared/web.ts): install, OAuth callback, the settings page.
  { method: "GET", path: "/install", function: "web", load: web },
  { method: "GET", path: "/oauth/callback", function: "web", load: web },
  { method: "GET", path: "/settings", function: "web", load: web },
  { method: "GET", path: "/settings/open", function: "web", load: web },
  { method: "GET", path: "/connect/google", function: "web", load: web },
  { method: "GET", path: "/connect/google/callback", function: "web", load: web },
  { method: "GET", path: "/connect/microsoft", function: "web", load: web },
  { method: "GET", path: "/connect/microsoft/callback", function: "web", load: web },
  // Adding a calendar reads and expands it: the one front-door route with the calendar engine.
  {
    method: "POST",
    path: "/settings/calendars/add",
    function: "webCalendars",
    load: webCalendars,
  },
  ...[
    "/settings/calendars/remove",
    "/settings/rules",
    "/settings/pause",
    "/settings/resume",
    "/settings/ooo/add",
    "/settings/ooo/cancel",
    "/settings/disconnect",
    "/settings/sign-out",
    "/settings/sync",
    "/settings/messages",
  ].map((path): Route => ({ method: "POST", path, function: "web", load: web })),
];

/** The functions that serve the front door (functions/shared/web.ts's routes between them). */
export const FRONT_DOOR_FUNCTIONS: ReadonlySet<string> = new Set(["web", "webCalendars"]);
export const isFrontDoorRoute = (r: Route): boolean => FRONT_DOOR_FUNCTIONS.has(r.function);

/** The functions that are not behind HTTP, with their handler modules. */
export const backgroundFunctions: Record<
  "tick" | "poll" | "syncWorker" | "transitionWorker",
  () => Promise<FunctionModule>
> = {
  tick: () => import("./schedule/tick"),
  poll: () => import("./schedule/poll"),
  syncWorker: () => import("./queue/sync"),
  transitionWorker: () => import("./queue/transition"),
};
