import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import * as z from "zod";
import { validateManifest } from "#lib/schema/manifest";
import { parsePointer, toPointer } from "#lib/schema/problems";

export const PLANS = ["free", "pro", "business-plus", "enterprise-grid"] as const;
export const ROLES = ["guest", "member", "admin", "owner", "primary_owner"] as const;
export type Role = (typeof ROLES)[number];
export type Plan = (typeof PLANS)[number];

/** Role levels of spec 2.3, lowest first, so a higher index outranks a lower one. */
export const roleLevel = (role: Role): number => ROLES.indexOf(role);

const fieldSchema = z.object({
  id: z.string().min(1),
  label: z.string(),
  type: z.enum(["date", "link", "long_text", "options_list", "tags", "text", "user"]),
  possible_values: z.array(z.string()).optional(),
  start_date: z.boolean().optional(),
  hint: z.string().optional(),
});

const userSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  role: z.enum(ROLES),
  is_bot: z.boolean().optional(),
  org_member: z.boolean().optional(),
  tz: z.string().optional(),
  profile: z.record(z.string(), z.unknown()).optional(),
});

export const tokenSchema = z.object({
  token: z.string().min(1),
  type: z.enum(["user", "bot", "workspace", "config"]),
  user: z.string().min(1),
  scopes: z.array(z.string()).default([]),
  state: z.enum(["active", "expired", "revoked", "inactive"]).default("active"),
  app: z.string().optional(),
  ip_restricted: z.boolean().optional(),
  /**
   * Epoch seconds from which the token answers `token_expired` (an extension: the platform's
   * rotating tokens, issued by `oauth.v2.access` when token rotation is on).
   */
  expires_at: z.number().int().positive().optional(),
});

const appSchema = z
  .object({
    id: z.string().min(1),
    signing_secret: z.string().min(1),
    /** The events envelope's `token` (the legacy verification token). */
    verification_token: z.string().optional(),
    /** OAuth credentials (an extension); derived by `defaultClientCredentials` when absent. */
    client_id: z.string().min(1).optional(),
    client_secret: z.string().min(1).optional(),
    manifest: z.record(z.string(), z.unknown()),
    collaborators: z.array(z.string()).default([]),
    managed_by: z.string().optional(),
  })
  .transform((app) => {
    const defaults = defaultClientCredentials(app);
    return {
      ...app,
      client_id: app.client_id ?? defaults.client_id,
      client_secret: app.client_secret ?? defaults.client_secret,
    };
  });

/**
 * The OAuth credentials of an app whose workspace file names none (files older than the OAuth
 * extension): stable across runs, so a client configured once keeps working, and the secret is
 * derived from the signing secret, so it cannot be guessed from the app id alone.
 */
export function defaultClientCredentials(app: { id: string; signing_secret: string }): {
  client_id: string;
  client_secret: string;
} {
  return {
    client_id: `${app.id}.client`,
    client_secret: createHmac("sha256", app.signing_secret)
      .update(`client_secret:${app.id}`)
      .digest("hex")
      .slice(0, 32),
  };
}

/** `http://` on the local machine: 127.x.x.x, localhost or [::1], with any port and path. */
const LOOPBACK_HTTP = /^http:\/\/(?:127(?:\.\d{1,3}){3}|localhost|\[::1\])(?::\d+)?(?:[/?#]|$)/i;

/**
 * The workspace file's exemption from the manifest schema's https rule: an app of the local stack
 * receives its events over loopback http, which no real deployment would. Every loopback `http://`
 * string is read as `https://` for validation only; the manifest is stored as written.
 * `apps.manifest.update` has no such exemption.
 */
export function loopbackAsHttps(value: unknown): unknown {
  if (typeof value === "string") {
    return LOOPBACK_HTTP.test(value) ? `https://${value.slice("http://".length)}` : value;
  }
  if (Array.isArray(value)) return value.map(loopbackAsHttps);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, loopbackAsHttps(v)]));
  }
  return value;
}

export const workspaceSchema = z
  .object({
    team: z.object({
      id: z.string().min(1),
      name: z.string().optional(),
      plan: z.enum(PLANS),
      profile_source: z.enum(["api", "admin"]).default("api"),
      enterprise: z.boolean().default(false),
    }),
    emoji: z.array(z.string()).default([]),
    fields: z.array(fieldSchema).default([]),
    users: z.array(userSchema).min(1),
    tokens: z.array(tokenSchema).default([]),
    apps: z.array(appSchema).default([]),
  })
  .superRefine((ws, ctx) => {
    const users = new Set<string>();
    ws.users.forEach((u, i) => {
      if (users.has(u.id))
        ctx.addIssue({
          code: "custom",
          path: ["users", i, "id"],
          message: `duplicate user ${u.id}`,
        });
      users.add(u.id);
    });
    const apps = new Set(ws.apps.map((a) => a.id));
    const tokens = new Set<string>();
    ws.tokens.forEach((t, i) => {
      if (tokens.has(t.token))
        ctx.addIssue({ code: "custom", path: ["tokens", i, "token"], message: "duplicate token" });
      tokens.add(t.token);
      if (!users.has(t.user))
        ctx.addIssue({
          code: "custom",
          path: ["tokens", i, "user"],
          message: `unknown user ${t.user}`,
        });
      if (t.app !== undefined && !apps.has(t.app))
        ctx.addIssue({
          code: "custom",
          path: ["tokens", i, "app"],
          message: `unknown app ${t.app}`,
        });
    });
    const clientIds = new Set<string>();
    ws.apps.forEach((a, i) => {
      if (clientIds.has(a.client_id))
        ctx.addIssue({
          code: "custom",
          path: ["apps", i, "client_id"],
          message: `duplicate client_id ${a.client_id}`,
        });
      clientIds.add(a.client_id);
    });
    ws.apps.forEach((a, i) => {
      a.collaborators.forEach((c, j) => {
        if (!users.has(c))
          ctx.addIssue({
            code: "custom",
            path: ["apps", i, "collaborators", j],
            message: `unknown user ${c}`,
          });
      });
    });
    ws.apps.forEach((a, i) => {
      for (const problem of validateManifest(loopbackAsHttps(a.manifest))) {
        ctx.addIssue({
          code: "custom",
          path: ["apps", i, "manifest", ...parsePointer(problem.pointer)],
          message: `manifest: ${problem.message}`,
        });
      }
    });
    if (ws.fields.filter((f) => f.start_date).length > 1) {
      ctx.addIssue({
        code: "custom",
        path: ["fields"],
        message: "at most one field may hold the start date",
      });
    }
  });

export type Workspace = z.infer<typeof workspaceSchema>;
export type WorkspaceUser = Workspace["users"][number];
export type WorkspaceToken = Workspace["tokens"][number];
export type WorkspaceApp = Workspace["apps"][number];
export type CustomField = Workspace["fields"][number];

export class WorkspaceError extends Error {
  readonly pointer: string;
  constructor(message: string, pointer: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "WorkspaceError";
    this.pointer = pointer;
  }
}

/** Validates a workspace document; the error names the first bad member by JSON pointer. */
export function parseWorkspace(doc: unknown, source = "workspace"): Workspace {
  const parsed = workspaceSchema.safeParse(doc);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const pointer = toPointer(
    (issue?.path ?? []).map((k) => (typeof k === "number" ? k : String(k))),
  );
  throw new WorkspaceError(`${source}: ${pointer}: ${issue?.message ?? "invalid"}`, pointer, {
    cause: parsed.error,
  });
}

export function loadWorkspace(path: string): Workspace {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err: unknown) {
    throw new WorkspaceError(`cannot read workspace file ${path}`, "", { cause: err });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err: unknown) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new WorkspaceError(`${path} is not JSON: ${detail}`, "", { cause: err });
  }
  return parseWorkspace(doc, path);
}
