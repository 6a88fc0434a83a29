import * as z from "zod";
import { feedUrlProblem } from "../../lib/app/source-rules";
import { channelKindSchema, sourceKindSchema } from "../../lib/calendar/providers/registry";
import {
  channelIdSchema,
  channelToken,
  sourceIdSchema,
  workspaceIdSchema,
} from "../../lib/webhooks";
import {
  BadRequest,
  HttpRefusal,
  httpHandler,
  json,
  parseJsonBody,
  parseWith,
  requireAdmin,
  requireMethod,
} from "../shared/http";

// Bounds keep every value inside DynamoDB's key and item limits, so bad input is a 400.
const secretSchema = z.string().min(1).max(1024);
const userBodySchema = z
  .object({
    tz: z.string().min(1).max(64),
    token: secretSchema,
    adminTokenUser: workspaceIdSchema.optional(),
    emails: z.array(z.string().max(254)).max(20).optional(),
    sources: z
      .array(
        z
          .object({
            id: sourceIdSchema,
            url: z
              .string()
              .min(1)
              .max(2048)
              .superRefine((url, ctx) => {
                // Loopback and private hosts depend on where this runs: the use case checks them.
                const problem = feedUrlProblem(url);
                if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
              }),
            kind: sourceKindSchema,
            secret: secretSchema.optional(),
          })
          .strict(),
      )
      .max(20),
    rules: z.record(z.string(), z.unknown()).optional(),
    mode: z.enum(["auto", "paused"]).default("auto"),
  })
  .strict();
const channelBodySchema = z
  .object({
    team: workspaceIdSchema,
    user: workspaceIdSchema,
    sourceId: sourceIdSchema,
    secret: secretSchema.optional(),
    // Optional only so a re-bind of a channel stored before kinds existed may omit it.
    kind: channelKindSchema.optional(),
  })
  .strict();
const userPathSchema = z.object({ team: workspaceIdSchema, user: workspaceIdSchema });
const channelPathSchema = z.object({ channelId: channelIdSchema });

/** The methods routes.ts declares for a user, and for a channel. */
export const USER_METHODS = ["GET", "PUT"] as const;
export const CHANNEL_METHODS = ["PUT"] as const;

/**
 * PUT/GET /admin/users/{team}/{user} and PUT /admin/channels/{channelId}: onboarding on a
 * deployed stack (IAM, or x-api-key locally). A PUT user queues a first sync of every source;
 * a GET never shows the token or source secrets.
 */
export const handler = httpHandler(async (req, app) => {
  requireAdmin(req, app);
  if (req.params.channelId !== undefined) {
    requireMethod(req, CHANNEL_METHODS);
    const { channelId } = parseWith(channelPathSchema, req.params);
    const body = parseJsonBody(channelBodySchema, req.rawBody);
    const key = { team: body.team, user: body.user };
    const user = await app.admin.getUser(key);
    if (!user?.sources.some((s) => s.id === body.sourceId)) {
      throw new HttpRefusal(404, "unknown_source", `no source ${body.sourceId} for that user`);
    }
    // Without a kind any hook would accept the channel (with its secret): new ones need one.
    const existing = body.kind === undefined ? await app.admin.findChannel(channelId) : undefined;
    if (body.kind === undefined && existing === undefined) {
      throw new BadRequest(
        "/kind: required for a new channel (google, graph or generic: the hook it is for)",
        "/kind",
      );
    }
    const kind = body.kind ?? existing?.kind;
    await app.admin.putChannel(channelId, {
      key,
      sourceId: body.sourceId,
      ...(body.secret !== undefined ? { secret: body.secret } : {}),
      ...(body.kind !== undefined ? { kind: body.kind } : {}),
    });
    // The token the channel's pushes must carry (Google channel token, Graph clientState, the
    // generic hook's signing key): derived from the id, so hooks check it before any read.
    const token = channelToken(await app.signingSecret(), channelId);
    return json(200, {
      channelId,
      team: key.team,
      user: key.user,
      sourceId: body.sourceId,
      ...(kind !== undefined ? { kind } : {}),
      token,
    });
  }
  requireMethod(req, USER_METHODS);
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
