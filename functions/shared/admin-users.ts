import * as z from "zod";
import { feedUrlProblem } from "#lib/calendar/source-rules";
import { CHANNEL_KINDS, SOURCE_KINDS } from "#lib/core/source-kinds";
import {
  channelIdSchema,
  channelToken,
  parseInput,
  parseJsonInput,
  sourceIdSchema,
  WebhookError,
  WebhookInputError,
  workspaceIdSchema,
} from "../../lib/webhooks";
import { type HttpFn, type HttpRoute, json, methodsAt, requireAdmin, routed } from "./http";

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
            kind: z.enum(SOURCE_KINDS),
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
    kind: z.enum(CHANNEL_KINDS).optional(),
  })
  .strict();
const userPathSchema = z.object({ team: workspaceIdSchema, user: workspaceIdSchema });
const channelPathSchema = z.object({ channelId: channelIdSchema });

const USER = "/admin/users/{team}/{user}";
const CHANNEL = "/admin/channels/{channelId}";

/** GET: the user and its status, never the token or source secrets. */
const getUser: HttpFn = async (req, app) => {
  const key = parseInput(userPathSchema, req.params);
  const user = await app.admin.getUser(key);
  if (!user) throw new WebhookError("unknown_user", `no user ${key.user} in ${key.team}`);
  return json(200, { user, status: (await app.admin.getStatusView(key)) ?? null });
};

/** PUT: creates or replaces the user, then queues a first sync of every source. */
const putUser: HttpFn = async (req, app) => {
  const key = parseInput(userPathSchema, req.params);
  const user = await app.admin.upsertUser({ key, ...parseJsonInput(userBodySchema, req.rawBody) });
  for (const source of user.sources) {
    await app.requestSync({ ...key, sourceId: source.id, reason: "manual" });
  }
  return json(200, { user, syncing: user.sources.length });
};

/** PUT: binds a push channel to one of a user's sources and answers the token it must carry. */
const putChannel: HttpFn = async (req, app) => {
  const { channelId } = parseInput(channelPathSchema, req.params);
  const body = parseJsonInput(channelBodySchema, req.rawBody);
  const key = { team: body.team, user: body.user };
  const user = await app.admin.getUser(key);
  if (!user?.sources.some((s) => s.id === body.sourceId)) {
    throw new WebhookError("unknown_source", `no source ${body.sourceId} for that user`);
  }
  // Without a kind any hook would accept the channel (with its secret): new ones need one.
  const existing = body.kind === undefined ? await app.admin.findChannel(channelId) : undefined;
  if (body.kind === undefined && existing === undefined) {
    throw new WebhookInputError(
      `/kind: required for a new channel (${CHANNEL_KINDS.join(", ")}: the hook it is for)`,
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
};

/** The onboarding routes, in the order `Allow` lists their methods. */
const routes: HttpRoute[] = [
  { method: "GET", path: USER, handler: getUser },
  { method: "PUT", path: USER, handler: putUser },
  { method: "PUT", path: CHANNEL, handler: putChannel },
];

/** The methods routed for a user, and for a channel (a test holds them to routes.ts). */
export const USER_METHODS = methodsAt(routes, USER);
export const CHANNEL_METHODS = methodsAt(routes, CHANNEL);

const route = routed(routes, { notFound: "no onboarding route here" });

/**
 * PUT/GET /admin/users/{team}/{user} and PUT /admin/channels/{channelId}: onboarding on a
 * deployed stack (IAM, or x-api-key locally).
 */
export const adminUsers: HttpFn = async (req, app) => {
  requireAdmin(req, app);
  return route(req, app);
};
