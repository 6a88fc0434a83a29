import { z } from "zod";
import {
  HttpRefusal,
  httpHandler,
  json,
  parseJsonBody,
  parseWith,
  requireAdmin,
} from "../shared/http";

const userBodySchema = z
  .object({
    tz: z.string().min(1),
    token: z.string().min(1),
    adminTokenUser: z.string().min(1).optional(),
    emails: z.array(z.string()).optional(),
    sources: z.array(
      z
        .object({
          id: z.string().min(1),
          url: z.string().min(1),
          kind: z.enum(["ics", "google", "graph", "generic"]),
          secret: z.string().min(1).optional(),
        })
        .strict(),
    ),
    rules: z.record(z.string(), z.unknown()).optional(),
    mode: z.enum(["auto", "paused"]).default("auto"),
  })
  .strict();
const channelBodySchema = z
  .object({
    team: z.string().min(1),
    user: z.string().min(1),
    sourceId: z.string().min(1),
    secret: z.string().min(1).optional(),
  })
  .strict();
const userPathSchema = z.object({ team: z.string().min(1), user: z.string().min(1) });
const channelPathSchema = z.object({ channelId: z.string().min(1).max(256) });

/**
 * PUT/GET /admin/users/{team}/{user} and PUT /admin/channels/{channelId}: onboarding on a
 * deployed stack (IAM, or x-api-key locally). A PUT user queues a first sync of every source;
 * a GET never shows the token or source secrets.
 */
export const handler = httpHandler(async (req, app) => {
  requireAdmin(req, app);
  if (req.params.channelId !== undefined) {
    const { channelId } = parseWith(channelPathSchema, req.params);
    const body = parseJsonBody(channelBodySchema, req.rawBody);
    const key = { team: body.team, user: body.user };
    const user = await app.admin.getUser(key);
    if (!user?.sources.some((s) => s.id === body.sourceId)) {
      throw new HttpRefusal(404, "unknown_source", `no source ${body.sourceId} for that user`);
    }
    await app.admin.putChannel(channelId, {
      key,
      sourceId: body.sourceId,
      ...(body.secret !== undefined ? { secret: body.secret } : {}),
    });
    return json(200, { channelId, team: key.team, user: key.user, sourceId: body.sourceId });
  }
  const key = parseWith(userPathSchema, req.params);
  if (req.method === "GET") {
    const user = await app.admin.getUser(key);
    if (!user) throw new HttpRefusal(404, "unknown_user", `no user ${key.user} in ${key.team}`);
    return json(200, { user, status: (await app.admin.getStatusView(key)) ?? null });
  }
  const user = await app.admin.upsertUser({ key, ...parseJsonBody(userBodySchema, req.rawBody) });
  for (const source of user.sources) {
    await app.requestSync({ ...key, sourceId: source.id, reason: "manual" });
  }
  return json(200, { user, syncing: user.sources.length });
});
