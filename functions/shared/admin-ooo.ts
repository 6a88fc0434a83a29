import * as z from "zod";
import { oooEmojiSchema, oooTextSchema } from "#lib/app/inputs";
import {
  entryIdSchema,
  parseInput,
  parseJsonInput,
  WebhookInputError,
  workspaceIdSchema,
} from "../../lib/webhooks";
import { type HttpFn, type HttpRoute, json, methodsAt, requireAdmin, routed } from "./http";

const instant = z.union([
  z.number().int().nonnegative(),
  z.iso.datetime({ offset: true }).transform((s) => Date.parse(s)),
]);
const scheduleSchema = z
  .object({
    start: instant,
    end: instant,
    text: oooTextSchema.optional(),
    emoji: oooEmojiSchema.optional(),
  })
  .strict();
const userPathSchema = z.object({ team: workspaceIdSchema, user: workspaceIdSchema });
const entryPathSchema = userPathSchema.extend({ id: entryIdSchema });

const COLLECTION = "/admin/users/{team}/{user}/ooo";
const ENTRY = "/admin/users/{team}/{user}/ooo/{id}";

const list: HttpFn = async (req, app) => {
  const key = parseInput(userPathSchema, req.params);
  return json(200, { entries: await app.useCases.listOutOfOffice(key) });
};

const schedule: HttpFn = async (req, app) => {
  const key = parseInput(userPathSchema, req.params);
  const input = parseJsonInput(scheduleSchema, req.rawBody);
  if (input.end <= input.start) throw new WebhookInputError("end must be after start", "/end");
  return json(201, { entry: await app.useCases.scheduleOutOfOffice(key, input) });
};

const cancel: HttpFn = async (req, app) => {
  const { id, ...key } = parseInput(entryPathSchema, req.params);
  const cancelled = await app.useCases.cancelOutOfOffice(key, id);
  return cancelled ? json(200, { cancelled: id }) : json(404, { error: "not_found", id });
};

/** The out-of-office admin routes, in the order `Allow` lists their methods. */
const routes: HttpRoute[] = [
  { method: "GET", path: COLLECTION, handler: list },
  { method: "POST", path: COLLECTION, handler: schedule },
  { method: "DELETE", path: ENTRY, handler: cancel },
];

/** The methods routed on the collection, and on one entry (a test holds them to routes.ts). */
export const COLLECTION_METHODS = methodsAt(routes, COLLECTION);
export const ENTRY_METHODS = methodsAt(routes, ENTRY);

const route = routed(routes, { notFound: "no out-of-office route here" });

/** GET/POST /admin/users/{team}/{user}/ooo and DELETE …/ooo/{id} (IAM, or x-api-key locally). */
export const adminOoo: HttpFn = async (req, app) => {
  requireAdmin(req, app);
  return route(req, app);
};
