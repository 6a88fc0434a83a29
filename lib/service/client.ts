import type { z } from "zod";
import type { Clock } from "../core/clock";
import { type Log, silentLog } from "../core/ports";
import { isEmptyStatus, type StatusValue } from "../core/types";
import { ManifestParseError, parseManifestText, validateManifest } from "../schema/manifest";
import type { Problem } from "../schema/problems";
import { type ProfileContext, validateProfile, validateProfileField } from "../schema/profile";
import { TokenBudget } from "./budget";
import {
  BudgetExceededError,
  ServiceError,
  ServiceNetworkError,
  ServiceResponseError,
  ServiceValidationError,
} from "./errors";
import {
  failureSchema,
  manifestUpdateResponseSchema,
  okSchema,
  type Profile,
  profileResponseSchema,
} from "./profile";

export type { Profile } from "./profile";

export interface ServiceClientOptions {
  /** Base of the method URLs, e.g. `http://127.0.0.1:4010/api` (a trailing slash is fine). */
  baseUrl: string;
  clock: Clock;
  fetch?: typeof fetch;
  /** Per-token budgets of spec 8.1; `false` turns them off (tests of the service's own limits). */
  budget?: TokenBudget | false;
  timeoutMs?: number;
  /** What the schema needs to know of the workspace (custom fields, custom emoji). */
  ctx?: ProfileContext;
  /** Validate requests before sending (default true). Off only to provoke service-side errors. */
  validate?: boolean;
  log?: Log;
}

export type Encoding = "json" | "form";

export interface SetProfileRequest {
  token: string;
  profile: Record<string, unknown>;
  /** The user to change (admins on paid teams); a sibling of `profile`. */
  user?: string;
  /** Sent as `x-svc-user` when a workspace token acts for a user. */
  actingUser?: string;
  encoding?: Encoding;
  /** Key of the budget lane; defaults to `user`, then `actingUser`, then the token's own user. */
  budgetUser?: string;
}

export interface SetProfileFieldRequest extends Omit<SetProfileRequest, "profile"> {
  name: string;
  value: string;
}

export interface RawCall {
  token?: string;
  /** The exact body to send. */
  body?: string;
  /** `null` sends no Content-Type header at all. */
  contentType?: string | null;
  headers?: Record<string, string>;
}

const SELF = "@self";

/** The typed client of the service's web API. */
export class ServiceClient {
  private readonly baseUrl: string;
  private readonly clock: Clock;
  private readonly fetchFn: typeof fetch;
  private readonly budget: TokenBudget | undefined;
  private readonly timeoutMs: number;
  private readonly ctx: ProfileContext | undefined;
  private readonly validate: boolean;
  private readonly log: Log;

  constructor(opts: ServiceClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.clock = opts.clock;
    this.fetchFn = opts.fetch ?? fetch;
    this.budget =
      opts.budget === false ? undefined : (opts.budget ?? new TokenBudget({ clock: opts.clock }));
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.ctx = opts.ctx;
    this.validate = opts.validate ?? true;
    this.log = opts.log ?? silentLog;
  }

  async setProfile(req: SetProfileRequest): Promise<Profile> {
    if (this.validate) {
      this.refuseIf(validateProfile(req.profile, this.ctxFor(req.profile.status_emoji)));
    }
    this.take(req.token, req.budgetUser ?? req.user ?? req.actingUser ?? SELF);
    const params: Record<string, string | Record<string, unknown>> = { profile: req.profile };
    if (req.user !== undefined) params.user = req.user;
    const body = await this.post("users.profile.set", req.token, params, {
      encoding: req.encoding ?? "json",
      actingUser: req.actingUser,
    });
    return this.expect(body, profileResponseSchema, "users.profile.set").profile;
  }

  async setProfileField(req: SetProfileFieldRequest): Promise<Profile> {
    if (this.validate) {
      const emoji = req.name === "status_emoji" ? req.value : undefined;
      this.refuseIf(validateProfileField(req.name, req.value, this.ctxFor(emoji)));
    }
    this.take(req.token, req.budgetUser ?? req.user ?? req.actingUser ?? SELF);
    const params: Record<string, string> = { name: req.name, value: req.value };
    if (req.user !== undefined) params.user = req.user;
    const body = await this.post("users.profile.set", req.token, params, {
      encoding: req.encoding ?? "json",
      actingUser: req.actingUser,
    });
    return this.expect(body, profileResponseSchema, "users.profile.set").profile;
  }

  /**
   * The reconciler's call: a set carries its expiration; an empty status is a clear of text and
   * emoji together with expiration 0, as the service requires.
   */
  setStatus(req: {
    token: string;
    user?: string;
    actingUser?: string;
    budgetUser: string;
    status: StatusValue;
  }): Promise<Profile> {
    const profile = isEmptyStatus(req.status)
      ? { status_text: "", status_emoji: "", status_expiration: 0 }
      : {
          status_text: req.status.text,
          status_emoji: req.status.emoji,
          status_expiration: req.status.expiration,
        };
    return this.setProfile({
      token: req.token,
      profile,
      budgetUser: req.budgetUser,
      ...(req.user !== undefined ? { user: req.user } : {}),
      ...(req.actingUser !== undefined ? { actingUser: req.actingUser } : {}),
    });
  }

  async getProfile(req: { token: string; user?: string }): Promise<Profile> {
    const params: Record<string, string> = {};
    if (req.user !== undefined) params.user = req.user;
    const body = await this.post("users.profile.get", req.token, params, { encoding: "json" });
    return this.expect(body, profileResponseSchema, "users.profile.get").profile;
  }

  async updateManifest(req: {
    token: string;
    appId: string;
    manifest: string | object;
  }): Promise<{ appId: string; permissionsUpdated: boolean }> {
    const manifest = this.manifestText(req.manifest);
    const body = await this.post(
      "apps.manifest.update",
      req.token,
      { app_id: req.appId, manifest },
      { encoding: "json" },
    );
    const ok = this.expect(body, manifestUpdateResponseSchema, "apps.manifest.update");
    return { appId: ok.app_id, permissionsUpdated: ok.permissions_updated };
  }

  /** Any method with a body of the caller's making; the answer is checked like any other. */
  async callRaw(method: string, call: RawCall = {}): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { ...call.headers };
    if (call.contentType !== null) headers["content-type"] = call.contentType ?? "application/json";
    if (call.token !== undefined) headers.authorization = `Bearer ${call.token}`;
    const body = await this.send(method, headers, call.body);
    return this.expect(body, okSchema, method);
  }

  private manifestText(manifest: string | object): string {
    let doc: unknown = manifest;
    if (typeof manifest === "string") {
      try {
        doc = parseManifestText(manifest);
      } catch (err: unknown) {
        if (!this.validate) return manifest;
        const message = err instanceof ManifestParseError ? err.message : String(err);
        throw new ServiceError(`manifest is not readable: ${message}`, {
          code: "invalid_manifest",
          retryable: false,
          local: true,
          errors: [{ message, pointer: "" }],
          cause: err,
        });
      }
    }
    if (this.validate) {
      const problems = validateManifest(doc);
      if (problems.length > 0) {
        throw new ServiceError(`manifest is invalid: ${problems[0]?.message ?? ""}`, {
          code: "invalid_manifest",
          retryable: false,
          local: true,
          errors: problems.map((p) => ({ message: p.message, pointer: p.pointer })),
        });
      }
    }
    return JSON.stringify(doc);
  }

  /**
   * Without the team's custom emoji list, an unknown emoji may be a custom one: only its form is
   * checked here, and the service decides whether the team has it.
   */
  private ctxFor(emoji: unknown): ProfileContext | undefined {
    if (this.ctx?.customEmoji !== undefined || typeof emoji !== "string") return this.ctx;
    const name = /^:([^:]+):/.exec(emoji)?.[1];
    return name === undefined ? this.ctx : { ...this.ctx, customEmoji: [name] };
  }

  private refuseIf(problems: Problem[]): void {
    if (problems.length > 0) throw new ServiceValidationError(problems);
  }

  private take(token: string, user: string): void {
    if (!this.budget) return;
    const decision = this.budget.tryTake(token, user);
    if (!decision.ok) throw new BudgetExceededError(decision.retryAt, this.clock.now());
  }

  private post(
    method: string,
    token: string,
    params: Record<string, string | Record<string, unknown>>,
    opts: { encoding: Encoding; actingUser?: string | undefined },
  ): Promise<unknown> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (opts.actingUser !== undefined) headers["x-svc-user"] = opts.actingUser;
    let body: string;
    if (opts.encoding === "form") {
      headers["content-type"] = "application/x-www-form-urlencoded";
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) {
        // Form encoding carries objects (the profile) as URL-encoded JSON.
        form.set(k, typeof v === "string" ? v : JSON.stringify(v));
      }
      body = form.toString();
    } else {
      headers["content-type"] = "application/json; charset=utf-8";
      body = JSON.stringify(params);
    }
    return this.send(method, headers, body);
  }

  private async send(
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<unknown> {
    let response: Response;
    try {
      response = await this.fetchFn(`${this.baseUrl}/${method}`, {
        method: "POST",
        headers,
        // Bytes, not a string: fetch would add a text/plain Content-Type of its own.
        ...(body !== undefined ? { body: new TextEncoder().encode(body) } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err: unknown) {
      const timedOut = err instanceof Error && err.name === "TimeoutError";
      this.log.warn("service call failed", { method, reason: timedOut ? "timeout" : "network" });
      throw timedOut
        ? new ServiceNetworkError("timeout", `${method}: no answer in ${this.timeoutMs} ms`, err)
        : new ServiceNetworkError("network_error", `${method}: service unreachable`, err);
    }
    const retryAfterS = this.retryAfter(response.headers.get("retry-after"));
    let text: string;
    try {
      text = await response.text();
    } catch (err: unknown) {
      throw new ServiceNetworkError("network_error", `${method}: answer cut off`, err);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err: unknown) {
      if (response.status === 429) {
        throw new ServiceError(`${method}: ratelimited`, {
          code: "ratelimited",
          httpStatus: 429,
          ...(retryAfterS !== undefined ? { retryAfterS } : {}),
        });
      }
      throw new ServiceResponseError(`${method}: answer is not JSON`, response.status, err);
    }
    const failure = failureSchema.safeParse(json);
    if (failure.success) {
      const f = failure.data;
      this.log.info("service call refused", { method, code: f.error, status: response.status });
      throw new ServiceError(`${method}: ${f.error}`, {
        code: f.error,
        httpStatus: response.status,
        ...(retryAfterS !== undefined ? { retryAfterS } : {}),
        ...(f.errors !== undefined ? { errors: f.errors } : {}),
      });
    }
    return json;
  }

  private expect<S extends z.ZodType>(body: unknown, schema: S, method: string): z.infer<S> {
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new ServiceResponseError(
        `${method}: unexpected answer shape (${parsed.error.issues[0]?.message ?? "?"})`,
        200,
        parsed.error,
      );
    }
    return parsed.data;
  }

  /** `Retry-After` is seconds, or (rarely) an HTTP date. */
  private retryAfter(header: string | null): number | undefined {
    if (header === null || header.trim() === "") return undefined;
    const seconds = Number(header);
    if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
    const at = Date.parse(header);
    if (Number.isNaN(at)) return undefined;
    return Math.max(0, Math.ceil((at - this.clock.now()) / 1000));
  }
}
