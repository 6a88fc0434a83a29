import * as z from "zod";
import { oooEmojiSchema, oooTextSchema } from "../../lib/app/inputs";
import { entryIdSchema, workspaceIdSchema } from "../../lib/webhooks";
import {
  BadRequest,
  httpHandler,
  json,
  parseJsonBody,
  parseWith,
  requireAdmin,
  requireMethod,
} from "../shared/http";

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
const pathSchema = z.object({
  team: workspaceIdSchema,
  user: workspaceIdSchema,
  id: entryIdSchema.optional(),
});

/** The methods routes.ts declares: on the collection, and on one entry. */
export const COLLECTION_METHODS = ["GET", "POST"] as const;
export const ENTRY_METHODS = ["DELETE"] as const;

/** GET/POST /admin/users/{team}/{user}/ooo and DELETE …/ooo/{id} (IAM, or x-api-key locally). */
export const handler = httpHandler(async (req, app) => {
  requireAdmin(req, app);
  requireMethod(req, req.params.id === undefined ? COLLECTION_METHODS : ENTRY_METHODS);
  const { team, user, id } = parseWith(pathSchema, req.params);
  const key = { team, user };
  if (req.method === "GET") return json(200, { entries: await app.useCases.listOutOfOffice(key) });
  if (id !== undefined) {
    const cancelled = await app.useCases.cancelOutOfOffice(key, id);
    return cancelled ? json(200, { cancelled: id }) : json(404, { error: "not_found", id });
  }
  const input = parseJsonBody(scheduleSchema, req.rawBody);
  if (input.end <= input.start) throw new BadRequest("end must be after start", "/end");
  return json(201, { entry: await app.useCases.scheduleOutOfOffice(key, input) });
});
