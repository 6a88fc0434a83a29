import { isIP } from "node:net";
import type { Problem } from "#lib/schema/problems";
import { type ProfileContext, validateProfile, validateProfileField } from "#lib/schema/profile";
import { checkManifest } from "./manifest-check";
import {
  type AppState,
  type EmulatorModel,
  type FieldValue,
  IMAGE_KEYS,
  normalizeName,
  STATUS_KEYS,
  type StoredProfile,
} from "./model";
import type { RateLimiter } from "./rate-limit";
import { stringArg } from "./request";
import { roleLevel, type WorkspaceToken } from "./workspace";

/** What a method answers: the JSON body, the HTTP status and extra headers. */
export interface MethodResult {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
  /** For the call log: who called, and whose profile it was about. */
  caller?: string;
  target?: string;
  /** Users whose profile changed, so the server emits `user_change` for each. */
  changed?: string[];
}

export interface CallContext {
  model: EmulatorModel;
  limiter: RateLimiter;
  now: number;
  args: Record<string, unknown>;
  /** The bearer token of the Authorization header, if any. */
  bearer: string | undefined;
  actingUserHeader: string | undefined;
  remoteAddress: string;
  /** The service's OAuth callback address, offered to MCP servers on registration. */
  oauthCallbackUrl: string;
  /** Where the emulator answers (`http://127.0.0.1:P`): the install link's origin. */
  origin: string;
}

export const fail = (error: string, extra: Record<string, unknown> = {}): MethodResult => ({
  status: error === "ratelimited" ? 429 : 200,
  body: { ok: false, error, ...extra },
});

type Auth = { ok: true; token: WorkspaceToken } | { ok: false; result: MethodResult };

/** IPv4 CIDR membership; anything unparsable is outside. */
function inRange(address: string, range: string): boolean {
  const addr = address.replace(/^::ffff:/, "");
  const [base = "", bitsText] = range.split("/");
  if (isIP(addr) !== 4 || isIP(base) !== 4) return addr === base;
  const bits = bitsText === undefined ? 32 : Number(bitsText);
  const toInt = (ip: string) => ip.split(".").reduce((n, o) => (n << 8) + Number(o), 0) >>> 0;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return (toInt(addr) & mask) === (toInt(base) & mask);
}

/** Section 5, in the order the service checks: presence, validity, state, type, scope. */
export function authenticate(
  ctx: CallContext,
  allowedTypes: readonly WorkspaceToken["type"][],
  scope: string | undefined,
): Auth {
  const argToken = stringArg(ctx.args, "token");
  if (!argToken.ok) return { ok: false, result: fail(argToken.code) };
  const value = ctx.bearer ?? argToken.value;
  if (value === undefined || value === "") return { ok: false, result: fail("not_authed") };
  const token = ctx.model.tokens.get(value);
  if (!token) return { ok: false, result: fail("invalid_auth") };
  const app = token.app === undefined ? undefined : ctx.model.apps.get(token.app);
  const settings = app?.manifest.settings as Record<string, unknown> | undefined;
  const ranges = settings?.allowed_ip_address_ranges;
  if (token.ip_restricted === true) return { ok: false, result: fail("invalid_auth") };
  if (Array.isArray(ranges) && ranges.length > 0) {
    const allowed = ranges.some((r) => typeof r === "string" && inRange(ctx.remoteAddress, r));
    if (!allowed) return { ok: false, result: fail("invalid_auth") };
  }
  // `expires_at` (epoch s): a rotating token issued by `oauth.v2.access` lives 12 hours.
  const lapsed = token.expires_at !== undefined && ctx.now >= token.expires_at * 1000;
  if (token.state === "expired" || lapsed) return { ok: false, result: fail("token_expired") };
  if (token.state === "revoked") return { ok: false, result: fail("token_revoked") };
  if (token.state === "inactive") return { ok: false, result: fail("account_inactive") };
  if (!allowedTypes.includes(token.type))
    return { ok: false, result: fail("not_allowed_token_type") };
  if (scope !== undefined && !token.scopes.includes(scope)) {
    return {
      ok: false,
      result: fail("missing_scope", { needed: scope, provided: token.scopes.join(",") }),
    };
  }
  return { ok: true, token };
}

/** What a status set with text and no emoji shows (the platform's speech balloon). */
export const DEFAULT_STATUS_EMOJI = ":speech_balloon:";

const PAID = new Set(["pro", "business-plus", "enterprise-grid"]);
const START_DATE_PLANS = new Set(["business-plus", "enterprise-grid"]);

export function profileContext(model: EmulatorModel, endUser: boolean): ProfileContext {
  return {
    fields: model.fields.map((f) => ({
      id: f.id,
      label: f.label,
      type: f.type,
      ...(f.possible_values !== undefined ? { possible_values: f.possible_values } : {}),
      ...(f.start_date !== undefined ? { start_date: f.start_date } : {}),
    })),
    customEmoji: model.emoji,
    endUser,
  };
}

const firstCode = (problems: Problem[]): string | undefined =>
  problems.length === 0 ? undefined : (problems[0]?.code ?? "invalid_arguments");

/** Rules 1–6 of spec 4.1, plus the email and start-date rules of 2.1. */
function permission(
  model: EmulatorModel,
  caller: string,
  target: string,
  keys: Set<string>,
): string | undefined {
  const team = model.team;
  const detailKeys = [...keys].filter((k) => !STATUS_KEYS.has(k));
  const touchesStartDate =
    keys.has("start_date") ||
    (keys.has("fields") &&
      model.startDateField() !== undefined &&
      keys.has(`fields.${model.startDateField()?.id}`));
  if (target !== caller) {
    if (!PAID.has(team.plan)) return "permission_denied";
    const targetUser = model.users.get(target);
    const callerLevel = roleLevel(model.role(caller));
    if (targetUser?.is_bot === true && callerLevel < roleLevel("owner")) return "not_app_admin";
    if (callerLevel < roleLevel("admin")) return "not_admin";
    const nonName = detailKeys.filter((k) => k !== "display_name" && !k.startsWith("fields."));
    if (team.enterprise && nonName.length > 0 && model.users.get(caller)?.org_member !== true) {
      return "not_admin";
    }
    if (callerLevel <= roleLevel(model.role(target))) return "cannot_update_admin_user";
  } else {
    if (keys.has("email")) return "not_admin";
    if (model.users.get(caller)?.org_member === true && detailKeys.length > 0)
      return "permission_denied";
  }
  if (team.profile_source === "admin" && detailKeys.some((k) => k !== "display_name")) {
    return "permission_denied";
  }
  if (touchesStartDate && !START_DATE_PLANS.has(team.plan)) return "permission_denied";
  return undefined;
}

const splitName = (real: string): [string, string] => {
  const parts = real
    .trim()
    .split(/\s+/)
    .filter((s) => s !== "");
  return [parts[0] ?? "", parts.slice(1).join(" ")];
};

/** Applies validated changes; the caller has checked every rule. */
function apply(
  model: EmulatorModel,
  target: string,
  changes: Record<string, unknown>,
  now: number,
): void {
  const p = model.profiles.get(target) as StoredProfile;
  const str = (v: unknown): string =>
    typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
  const startField = model.startDateField();
  for (const [key, value] of Object.entries(changes)) {
    switch (key) {
      case "status_text":
      case "status_emoji":
      case "display_name":
      case "title":
      case "phone":
      case "pronouns":
        p[key] = str(value);
        break;
      case "status_expiration":
        p.status_expiration = Number(value) || 0;
        break;
      case "real_name": {
        p.real_name = str(value).trim();
        if (!("first_name" in changes) && !("last_name" in changes)) {
          [p.first_name, p.last_name] = splitName(p.real_name);
        }
        break;
      }
      case "first_name":
      case "last_name":
        p[key] = str(value).trim();
        p.real_name = [p.first_name, p.last_name].filter((s) => s !== "").join(" ");
        break;
      case "start_date":
        p.start_date = str(value);
        if (startField) setField(p, startField.id, { value: p.start_date, alt: "" });
        break;
      case "email": {
        const email = str(value);
        if (email.toLowerCase() !== p.email.toLowerCase())
          model.addPendingEmail(target, p.email, email, now);
        break;
      }
      case "fields": {
        for (const [id, raw] of Object.entries(value as Record<string, unknown>)) {
          const fv = (raw ?? {}) as { value?: unknown; alt?: unknown };
          const v = Array.isArray(fv.value) ? fv.value.map(String) : str(fv.value);
          setField(p, id, { value: v, alt: str(fv.alt) });
          if (startField?.id === id) p.start_date = typeof v === "string" ? v : "";
        }
        break;
      }
      default:
        // skype stays "", images and unknown keys are not settable: the service ignores them.
        break;
    }
  }
  p.real_name_normalized = normalizeName(p.real_name);
  p.display_name_normalized = normalizeName(p.display_name);
  // Spec 3: a status set with `status_expiration` omitted does not expire. It never inherits
  // the expiration of the status it replaces; a call naming no status field leaves all three.
  const setsStatus =
    Object.hasOwn(changes, "status_text") || Object.hasOwn(changes, "status_emoji");
  if (setsStatus && !Object.hasOwn(changes, "status_expiration")) p.status_expiration = 0;
  if (p.status_text === "" && p.status_emoji === "") p.status_expiration = 0;
  // The platform shows a text-only status with its default emoji.
  if (p.status_text !== "" && p.status_emoji === "") p.status_emoji = DEFAULT_STATUS_EMOJI;
}

function setField(p: StoredProfile, id: string, v: FieldValue): void {
  const empty = Array.isArray(v.value) ? v.value.length === 0 : v.value === "";
  if (empty && v.alt === "") delete p.fields[id];
  else p.fields[id] = v;
}

/**
 * A lone "" (the other status field left out) is a half clear when the stored other field is
 * non-empty; with both fields named, the schema has already judged the request.
 */
function partialClear(p: StoredProfile, changes: Record<string, unknown>): boolean {
  const has = (k: string) => Object.hasOwn(changes, k);
  const text = changes.status_text;
  const emoji = changes.status_emoji;
  if (has("status_text") && has("status_emoji")) return false;
  if (has("status_text") && text === "" && p.status_emoji !== "") return true;
  if (has("status_emoji") && emoji === "" && p.status_text !== "") return true;
  return false;
}

export function usersProfileSet(ctx: CallContext): MethodResult {
  const auth = authenticate(ctx, ["user", "workspace"], "users.profile:write");
  if (!auth.ok) return auth.result;
  const { model } = ctx;
  const token = auth.token;

  let caller = token.user;
  if (token.type === "workspace") {
    const acting = ctx.actingUserHeader;
    if (acting === undefined || !model.users.has(acting))
      return { ...fail("no_permission"), caller };
    caller = acting;
  }

  const userArg = stringArg(ctx.args, "user");
  const nameArg = stringArg(ctx.args, "name");
  const valueArg = stringArg(ctx.args, "value");
  for (const a of [userArg, nameArg, valueArg]) if (!a.ok) return { ...fail(a.code), caller };
  const user = userArg.ok ? userArg.value : undefined;
  const name = nameArg.ok ? nameArg.value : undefined;
  const value = valueArg.ok ? valueArg.value : undefined;

  let profile: Record<string, unknown> | undefined;
  const rawProfile = ctx.args.profile;
  if (rawProfile !== undefined && rawProfile !== null && rawProfile !== "") {
    let doc: unknown = rawProfile;
    if (typeof rawProfile === "string") {
      try {
        doc = JSON.parse(rawProfile);
      } catch {
        return { ...fail("invalid_profile"), caller };
      }
    } else if (Array.isArray(rawProfile) && rawProfile.every((v) => typeof v === "string")) {
      // A repeated form argument: an array where a string (the URL-encoded JSON) belongs.
      return { ...fail("invalid_array_arg"), caller };
    }
    if (doc === null || typeof doc !== "object" || Array.isArray(doc))
      return { ...fail("invalid_profile"), caller };
    profile = doc as Record<string, unknown>;
  }
  if (profile !== undefined && name !== undefined) return { ...fail("invalid_arguments"), caller };
  if (profile === undefined && name === undefined) return { ...fail("invalid_arguments"), caller };
  if (name !== undefined && value === undefined) return { ...fail("invalid_arguments"), caller };

  const target = user ?? caller;
  if (!model.users.has(target)) return { ...fail("invalid_arguments"), caller };

  const rate = ctx.limiter.takeProfileSet(token.token, target, ctx.now);
  if (!rate.ok) {
    return {
      ...fail("ratelimited"),
      headers: { "retry-after": String(rate.retryAfterS) },
      caller,
      target,
    };
  }

  // The single name/value form sets a custom field when the name is a field ID.
  let changes: Record<string, unknown>;
  if (profile !== undefined) changes = profile;
  else {
    const def = model.fields.find((f) => f.id === name);
    if (def) {
      // The single form carries a tags value as comma-separated tags.
      const v =
        def.type === "tags" && value !== undefined
          ? value
              .split(",")
              .map((t) => t.trim())
              .filter((t) => t !== "")
          : value;
      changes = { fields: { [def.id]: { value: v } } };
    } else changes = { [name as string]: value };
  }

  const keys = new Set(Object.keys(changes));
  if (changes.fields && typeof changes.fields === "object") {
    for (const id of Object.keys(changes.fields)) keys.add(`fields.${id}`);
  }
  const denied = permission(model, caller, target, keys);
  if (denied) return { ...fail(denied), caller, target };

  const endUser = roleLevel(model.role(caller)) < roleLevel("admin");
  const problems =
    profile !== undefined
      ? validateProfile(profile, profileContext(model, endUser))
      : validateProfileField(name as string, value, profileContext(model, endUser));
  const invalid = firstCode(problems);
  if (invalid) return { ...fail(invalid), caller, target };

  const current = model.profiles.get(target) as StoredProfile;
  if (partialClear(current, changes)) {
    return { ...fail("must_clear_both_status_text_and_status_emoji"), caller, target };
  }
  if (typeof changes.email === "string" && model.emailTaken(changes.email, target)) {
    return { ...fail("email_taken"), caller, target };
  }

  apply(model, target, changes, ctx.now);
  return {
    status: 200,
    body: { ok: true, profile: structuredClone(current) },
    caller,
    target,
    changed: [target],
  };
}

export function usersProfileGet(ctx: CallContext): MethodResult {
  const auth = authenticate(ctx, ["user", "bot", "workspace"], "users.profile:read");
  if (!auth.ok) return auth.result;
  const userArg = stringArg(ctx.args, "user");
  if (!userArg.ok) return fail(userArg.code);
  const caller = auth.token.user;
  const target =
    userArg.value ?? (auth.token.type === "workspace" ? (ctx.actingUserHeader ?? caller) : caller);
  const profile = ctx.model.profiles.get(target);
  if (!profile) return { ...fail("user_not_found"), caller, target };
  return { status: 200, body: { ok: true, profile: structuredClone(profile) }, caller, target };
}

export function teamProfileGet(ctx: CallContext): MethodResult {
  const auth = authenticate(ctx, ["user", "bot", "workspace"], "users.profile:read");
  if (!auth.ok) return auth.result;
  const fields = ctx.model.fields.map((f, i) => ({
    id: f.id,
    ordering: i,
    label: f.label,
    hint: f.hint ?? "",
    type: f.type,
    possible_values: f.possible_values ?? null,
    options: null,
    is_hidden: false,
  }));
  return {
    status: 200,
    body: { ok: true, profile: { fields, sections: [] } },
    caller: auth.token.user,
  };
}

function scopesOf(manifest: Record<string, unknown>): string {
  const oauth = manifest.oauth_config as { scopes?: Record<string, unknown> } | undefined;
  const scopes = oauth?.scopes ?? {};
  const list = (k: string) =>
    Array.isArray(scopes[k]) ? (scopes[k] as unknown[]).map(String).sort() : [];
  return JSON.stringify({
    bot: list("bot"),
    bot_optional: list("bot_optional"),
    user: list("user"),
    user_optional: list("user_optional"),
  });
}

/**
 * Whether the token may change or read the app: a manager app's token only the apps it manages
 * (`app_not_owned_by_manager_app`), a person's only the apps they collaborate on
 * (`no_permission`). Undefined when it may.
 */
export function refusedOwner(token: WorkspaceToken, state: AppState): string | undefined {
  if (token.app !== undefined && token.app !== state.app.id) {
    return state.app.managed_by === token.app ? undefined : "app_not_owned_by_manager_app";
  }
  return state.app.collaborators.includes(token.user) ? undefined : "no_permission";
}

export async function appsManifestUpdate(ctx: CallContext): Promise<MethodResult> {
  const auth = authenticate(ctx, ["config"], undefined);
  if (!auth.ok) return auth.result;
  const token = auth.token;
  const caller = token.user;
  const appIdArg = stringArg(ctx.args, "app_id");
  if (!appIdArg.ok) return { ...fail(appIdArg.code), caller };
  const rawManifest = ctx.args.manifest;
  if (Array.isArray(rawManifest)) return { ...fail("invalid_array_arg"), caller };
  const appId = appIdArg.value;
  if (appId === undefined || appId === "" || rawManifest === undefined || rawManifest === null) {
    return { ...fail("invalid_arguments"), caller };
  }
  const state = ctx.model.apps.get(appId);
  if (!state) return { ...fail("invalid_app_id"), caller };
  const refused = refusedOwner(token, state);
  if (refused) return { ...fail(refused), caller };
  const rate = ctx.limiter.takeManifestUpdate(appId, ctx.now);
  if (!rate.ok)
    return { ...fail("ratelimited"), headers: { "retry-after": String(rate.retryAfterS) }, caller };

  const checked = await checkManifest(rawManifest, ctx.oauthCallbackUrl);
  if (!checked.ok) return { ...fail(checked.code, checked.extra), caller };
  const manifest = checked.manifest;
  const permissionsUpdated = scopesOf(state.manifest) !== scopesOf(manifest);
  state.manifest = structuredClone(manifest);
  return {
    status: 200,
    body: { ok: true, app_id: appId, permissions_updated: permissionsUpdated },
    caller,
  };
}

export const METHODS: Record<string, (ctx: CallContext) => MethodResult | Promise<MethodResult>> = {
  "users.profile.set": usersProfileSet,
  "users.profile.get": usersProfileGet,
  "team.profile.get": teamProfileGet,
  "apps.manifest.update": appsManifestUpdate,
};

export { IMAGE_KEYS };
