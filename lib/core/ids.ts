import * as z from "zod";

/**
 * Bounds for every identifier a request can carry into a DynamoDB key. Keys are capped at
 * 2048 bytes (partition) and 1024 bytes (sort); an id past them makes the store fail with a
 * ValidationException, so ids are refused at the edge with a precise message instead.
 */

/** Longest channel, event or source-facing id accepted (≤ 765 UTF-8 bytes). */
export const MAX_ID_LENGTH = 255;

/** Longest out-of-office entry id accepted; newId() makes 36-character UUIDs. */
export const MAX_ENTRY_ID_LENGTH = 128;

/** Longest calendar source id accepted (it is part of sort keys and queue messages). */
export const MAX_SOURCE_ID_LENGTH = 128;

/**
 * The service's team and user ids are short upper-case alphanumerics (`T0DEMO`, `U001`,
 * `U0ADMIN`). The charset also keeps `#`, our key separator, out of keys.
 */
export const WORKSPACE_ID = /^[A-Z0-9]{1,32}$/;

export const workspaceIdSchema = z
  .string()
  .regex(WORKSPACE_ID, "must be a workspace id: 1-32 upper-case letters or digits");

/** Event ids (`Ev00000001`): printable ASCII without spaces. */
export const eventIdSchema = z
  .string()
  .regex(
    /^[\x21-\x7e]{1,255}$/,
    `must be an event id: 1-${MAX_ID_LENGTH} printable ASCII characters without spaces`,
  );

/** Google channel ids, Graph subscription ids and generic hook ids. */
export const channelIdSchema = z
  .string()
  .min(1, "must not be empty")
  .max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`);

export const entryIdSchema = z
  .string()
  .min(1, "must not be empty")
  .max(MAX_ENTRY_ID_LENGTH, `must be at most ${MAX_ENTRY_ID_LENGTH} characters`);

/**
 * Source ids: `#` is the store's key separator, and `/` separates the parts of sync dedupe keys
 * and would split the generic hook path the local stack names after a source.
 */
export const sourceIdSchema = z
  .string()
  .min(1, "must not be empty")
  .max(MAX_SOURCE_ID_LENGTH, `must be at most ${MAX_SOURCE_ID_LENGTH} characters`)
  .regex(/^[^#/\p{Cc}]*$/u, "must not contain '#', '/' or control characters");

/** True when `id` could name a bound channel at all (a lookup is worth a read). */
export const isChannelId = (id: string): boolean => channelIdSchema.safeParse(id).success;
