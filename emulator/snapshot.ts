/**
 * The emulator's mutable workspace state as a JSON document, so a local stack can stop and start
 * again without the emulator forgetting what happened: the profiles (statuses included), every
 * token with its state (those issued through OAuth too), the OAuth grants with their refresh
 * tokens and pending codes, the apps' manifests, the apps `apps.manifest.create` made (with their
 * credentials), pending email changes and the id counters.
 * Event deliveries in flight are not kept. A document is validated before use; one that does not
 * fit this version or this workspace is refused with a reason, never half applied.
 */
import * as z from "zod";
import { dndSnapshotSchema } from "./dnd-state";
import { homeSnapshotSchema } from "./home-state";
import type { StoredProfile } from "./model";
import { tokenSchema, type Workspace } from "./workspace";

export const SNAPSHOT_VERSION = 1;

const fieldValueSchema = z.object({
  value: z.union([z.string(), z.array(z.string())]),
  alt: z.string(),
});

const profileSchema = z.object({
  title: z.string(),
  phone: z.string(),
  skype: z.string(),
  real_name: z.string(),
  real_name_normalized: z.string(),
  display_name: z.string(),
  display_name_normalized: z.string(),
  fields: z.record(z.string(), fieldValueSchema),
  status_text: z.string(),
  status_emoji: z.string(),
  status_emoji_display_info: z.array(z.unknown()),
  status_expiration: z.number(),
  avatar_hash: z.string(),
  start_date: z.string(),
  email: z.string(),
  pronouns: z.string(),
  huddle_state: z.string(),
  huddle_state_expiration_ts: z.number(),
  first_name: z.string(),
  last_name: z.string(),
  image_24: z.string(),
  image_32: z.string(),
  image_48: z.string(),
  image_72: z.string(),
  image_192: z.string(),
  image_512: z.string(),
}) satisfies z.ZodType<StoredProfile>;

const grantSchema = z.object({
  appId: z.string().min(1),
  user: z.string().min(1),
  scopes: z.array(z.string()),
  /** Bot scopes the consent granted (the bot token extension). */
  botScopes: z.array(z.string()).optional(),
  /** A grant of the app's bot token, whose `user` is the bot user. */
  bot: z.boolean().optional(),
  /** Access tokens issued under this consent (revoked together). */
  tokens: z.array(z.string()),
  /** Refresh tokens not yet spent. */
  refreshTokens: z.array(z.string()),
});

const snapshotSchema = z.object({
  version: z.literal(SNAPSHOT_VERSION),
  /** The team of the workspace the state belongs to. */
  team: z.string().min(1),
  profiles: z.record(z.string(), profileSchema),
  tokens: z.array(tokenSchema),
  apps: z.array(z.object({ id: z.string().min(1), manifest: z.record(z.string(), z.unknown()) })),
  /** Apps made by `apps.manifest.create`; absent in snapshots from before that method. */
  createdApps: z
    .array(
      z.object({
        id: z.string().min(1),
        signing_secret: z.string().min(1),
        verification_token: z.string().optional(),
        client_id: z.string().min(1),
        client_secret: z.string().min(1),
        manifest: z.record(z.string(), z.unknown()),
        collaborators: z.array(z.string()),
      }),
    )
    .default([]),
  pendingEmails: z.array(
    z.object({
      id: z.string(),
      user: z.string(),
      oldEmail: z.string(),
      newEmail: z.string(),
      requestedAt: z.number(),
      sentTo: z.tuple([z.string(), z.string()]),
    }),
  ),
  grants: z.array(grantSchema),
  /** Authorization codes not yet spent; `grant` is an index into `grants`. */
  codes: z.array(
    z.object({
      code: z.string().min(1),
      grant: z.number().int().nonnegative(),
      redirectUri: z.string(),
      sent: z.boolean(),
      issuedAt: z.number(),
    }),
  ),
  counters: z.object({
    event: z.number().int().nonnegative(),
    email: z.number().int().nonnegative(),
  }),
  /** The App Home extension's Home views and DMs (absent in snapshots older than it). */
  home: homeSnapshotSchema.optional(),
  /** The DND extension's snoozes (absent in snapshots older than it). */
  dnd: dndSnapshotSchema.optional(),
});

export type EmulatorSnapshot = z.infer<typeof snapshotSchema>;
export type SavedGrant = EmulatorSnapshot["grants"][number];
export type SavedCode = EmulatorSnapshot["codes"][number];

export type SnapshotRead = { ok: true; snapshot: EmulatorSnapshot } | { ok: false; reason: string };

/**
 * Validates a snapshot against the schema and against the workspace it is to be applied to: the
 * same team, profiles of its users only, manifests of its apps only, codes naming a grant.
 */
export function parseSnapshot(json: unknown, workspace: Workspace): SnapshotRead {
  const parsed = snapshotSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const pointer = `/${issue?.path.map(String).join("/") ?? ""}`;
    return { ok: false, reason: `not a snapshot of this version at ${pointer}: ${issue?.message}` };
  }
  const snapshot = parsed.data;
  if (snapshot.team !== workspace.team.id)
    return {
      ok: false,
      reason: `a snapshot of team ${snapshot.team}, not ${workspace.team.id}`,
    };
  const users = new Set(workspace.users.map((u) => u.id));
  const strayUser = Object.keys(snapshot.profiles).find((id) => !users.has(id));
  if (strayUser !== undefined)
    return { ok: false, reason: `a profile of ${strayUser}, who is not in the workspace` };
  const apps = new Set([...workspace.apps, ...snapshot.createdApps].map((a) => a.id));
  const strayApp = snapshot.apps.find((a) => !apps.has(a.id));
  if (strayApp !== undefined)
    return { ok: false, reason: `a manifest of app ${strayApp.id}, not in the workspace` };
  const badCode = snapshot.codes.find((c) => c.grant >= snapshot.grants.length);
  if (badCode !== undefined) return { ok: false, reason: "a code naming no grant" };
  return { ok: true, snapshot };
}
