import * as z from "zod";
import type { SourceErrorKind } from "#lib/core/records";
import { SOURCE_KINDS } from "#lib/core/source-kinds";

/** Why a source's reads fail (lib/core/records.ts SourceErrorKind), as a message carries it. */
const SOURCE_ERROR_KINDS = [
  "unreachable",
  "server_error",
  "gone",
  "refused",
  "address_refused",
  "not_calendar",
  "too_large",
  "provider",
  "failed",
] as const satisfies readonly SourceErrorKind[];

/**
 * The sync queue's messages. Apart from the queue chain (queue.ts), so the transition worker,
 * which shares that chain, does not build these schemas at its cold start.
 */

/** What the poll read of a source (lib/app/contracts KnownSource). */
const knownSourceSchema = z.object({
  kind: z.enum(SOURCE_KINDS),
  // As stored: sealed to its owner, or in clear when written before addresses were sealed.
  url: z.string().min(1).optional(),
  urlSealed: z.string().min(1).optional(),
  connected: z.literal(true).optional(),
  etag: z.string().optional(),
  lastModified: z.string().optional(),
  hash: z.string().optional(),
  syncedAt: z.number().optional(),
  health: z
    .object({
      okAt: z.number().optional(),
      error: z
        .object({
          kind: z.enum(SOURCE_ERROR_KINDS),
          status: z.number().int().optional(),
          since: z.number(),
          noticedAt: z.number().optional(),
        })
        .optional(),
    })
    .optional(),
});

export const syncMessageSchema = z.object({
  team: z.string().min(1),
  user: z.string().min(1),
  sourceId: z.string().min(1),
  reason: z.enum(["push", "poll", "manual", "upkeep"]),
  upkeep: z
    .object({
      request: z.enum(["renew", "recreate"]).optional(),
      channelId: z.string().min(1).optional(),
      repair: z.literal(true).optional(),
    })
    .optional(),
  known: knownSourceSchema.optional(),
});

/** The sync queue's messages: one source, or the poll's batch of them. */
export const syncQueueMessageSchema = z.union([
  z.object({ reason: z.literal("poll"), sources: z.array(syncMessageSchema).min(1) }),
  syncMessageSchema,
]);
