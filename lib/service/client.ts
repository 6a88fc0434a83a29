import * as z from "zod";
import type { Clock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";
import { isEmptyStatus, type StatusValue } from "#lib/core/types";
import type { Problem } from "#lib/schema/problems";
import { type ProfileContext, validateProfile, validateProfileField } from "#lib/schema/profile";
import { TokenBudget } from "./budget";
import { BudgetExceededError, ServiceValidationError } from "./errors";
import { okSchema, type Profile, profileResponseSchema } from "./profile";
import { type Encoding, ServiceTransport } from "./transport";

export type { Profile } from "./profile";
export type { Encoding } from "./transport";

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

const dndAnswerSchema = z.looseObject({
  ok: z.literal(true),
  snooze_enabled: z.boolean().optional(),
  snooze_endtime: z.number().int().optional(),
});
export type DndAnswer = z.infer<typeof dndAnswerSchema>;

/**
 * The typed client of the service's profile methods (`users.profile.*`). Manifests have their
 * own client (manifest-client.ts): the functions that set statuses load this one, and it must
 * not bring yaml and the manifest schema into their bundles.
 */
export class ServiceClient {
  private readonly transport: ServiceTransport;
  private readonly clock: Clock;
  private readonly budget: TokenBudget | undefined;
  private readonly ctx: ProfileContext | undefined;
  private readonly validate: boolean;

  constructor(opts: ServiceClientOptions) {
    this.transport = new ServiceTransport(opts);
    this.clock = opts.clock;
    this.budget =
      opts.budget === false ? undefined : (opts.budget ?? new TokenBudget({ clock: opts.clock }));
    this.ctx = opts.ctx;
    this.validate = opts.validate ?? true;
  }

  async setProfile(req: SetProfileRequest): Promise<Profile> {
    if (this.validate) {
      this.refuseIf(validateProfile(req.profile, this.ctxFor(req.profile.status_emoji)));
    }
    this.take(req.token, req.budgetUser ?? req.user ?? req.actingUser ?? SELF);
    const params: Record<string, string | Record<string, unknown>> = { profile: req.profile };
    if (req.user !== undefined) params.user = req.user;
    const body = await this.transport.post("users.profile.set", req.token, params, {
      encoding: req.encoding ?? "json",
      actingUser: req.actingUser,
    });
    return this.transport.expect(body, profileResponseSchema, "users.profile.set").profile;
  }

  async setProfileField(req: SetProfileFieldRequest): Promise<Profile> {
    if (this.validate) {
      const emoji = req.name === "status_emoji" ? req.value : undefined;
      this.refuseIf(validateProfileField(req.name, req.value, this.ctxFor(emoji)));
    }
    this.take(req.token, req.budgetUser ?? req.user ?? req.actingUser ?? SELF);
    const params: Record<string, string> = { name: req.name, value: req.value };
    if (req.user !== undefined) params.user = req.user;
    const body = await this.transport.post("users.profile.set", req.token, params, {
      encoding: req.encoding ?? "json",
      actingUser: req.actingUser,
    });
    return this.transport.expect(body, profileResponseSchema, "users.profile.set").profile;
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
    const body = await this.transport.post("users.profile.get", req.token, params, {
      encoding: "json",
    });
    return this.transport.expect(body, profileResponseSchema, "users.profile.get").profile;
  }

  /**
   * `dnd.setSnooze`, `dnd.endSnooze` and `dnd.info` with the user's own token (an extension of
   * the spec, after the platform's public reference): the answer's snooze fields, checked.
   */
  async dnd(
    method: "dnd.setSnooze" | "dnd.endSnooze" | "dnd.info",
    token: string,
    params: Record<string, string> = {},
  ): Promise<DndAnswer> {
    const body = await this.transport.post(method, token, params, { encoding: "form" });
    return this.transport.expect(body, dndAnswerSchema, method);
  }

  /** Any method with a body of the caller's making; the answer is checked like any other. */
  async callRaw(method: string, call: RawCall = {}): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { ...call.headers };
    if (call.contentType !== null) headers["content-type"] = call.contentType ?? "application/json";
    if (call.token !== undefined) headers.authorization = `Bearer ${call.token}`;
    const body = await this.transport.send(method, headers, call.body);
    return this.transport.expect(body, okSchema, method);
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
}
