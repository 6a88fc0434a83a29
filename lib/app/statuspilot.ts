import { randomUUID } from "node:crypto";
import * as z from "zod";
import { sourceKindSchema } from "../calendar/providers/registry";
import type { Clock } from "../core/clock";
import { type Decision, decideForState, decisionStatus } from "../core/decide";
import type { Log, Queue } from "../core/ports";
import { applyRead, type ReadResult } from "../core/profile-read";
import { DEFAULT_RULES, outOfOfficeText, type UserRules, userRulesSchema } from "../core/rules";
import {
  applyObservation,
  claimWrite,
  initialStatusState,
  overrideActive,
  recordWrite,
  releaseWrite,
  type StatusState,
  sameStatus,
} from "../core/status-state";
import { desiredAt, nextWakeAfter, resolveSegments, type Segment } from "../core/timeline";
import type { Block, StatusValue, UserChange, UserKey } from "../core/types";
import { ConflictError } from "../store/errors";
import { pollPhasesEndedBy } from "../store/items/user";
import { sourceIdSchema } from "../webhooks/ids";
import type {
  OutOfOfficeEntry,
  OutOfOfficeInput,
  ReconcileOutcome,
  StatusUseCases,
  SyncMessage,
  TimelineMeta,
  TransitionMessage,
  UserAdministration,
} from "./contracts";
import { InvalidInputError, UnknownUserError } from "./errors";
import {
  type ChannelKind,
  GatewayError,
  type RateBudget,
  type SourceKind,
  type SourceRecord,
  type StatusGateway,
  type StatusRecord,
  type StatusStore,
  type TimelineRecord,
  type TokenVault,
  type UserMode,
  type UserRecord,
  type UserSnapshot,
} from "./ports";
import { type SourceAddressPolicy, sourceUrlProblem } from "./source-rules";
import type { SyncSourceView } from "./sync";

export interface StatusPilotOptions {
  /** How far ahead the tick looks: the minute between ticks plus a margin. */
  tickHorizonMs: number;
  /** Unused: the tick reads the due index from 0, so no missed transition is left behind. */
  tickLookbackMs: number;
  /** A transition this overdue was lost (its message failed or vanished); the tick re-enqueues it. */
  lostTransitionGraceMs: number;
  /** While a write is in flight, a different decision is looked at again after this long. */
  inFlightRecheckMs: number;
  /** Rescheduled by the rate budget, other writes wait this much longer than out-of-office. */
  budgetOooLeadMs: number;
  /** Bounded retries from a fresh read after a lost conditional write. */
  maxConflictRetries: number;
  /** How long a claimed write blocks other writes of the same user. */
  pendingLeaseMs: number;
  /** How long an event id is remembered. */
  eventRetentionMs: number;
  backoffBaseS: number;
  backoffMaxS: number;
  /** Blocks that ended longer ago than this are dropped from stored timelines. */
  keepPastMs: number;
  /**
   * Read the profile (`users.profile.get`) before every write, so a manual status whose
   * `user_change` was lost is left alone. Costs one read per write; reads are not charged to
   * the write budget of spec 8.1. Off or on, a write that depends on a standing override or a
   * same-second tie reads first (the decision's `readFirst`).
   */
  verifyBeforeWrite: boolean;
  /**
   * Whether sources may name loopback and private addresses. Only the local stack allows them;
   * on AWS they would let a source's owner reach the account's network (SSRF).
   */
  allowPrivateSourceAddresses: boolean;
}

export const DEFAULT_OPTIONS: StatusPilotOptions = {
  tickHorizonMs: 70_000,
  tickLookbackMs: 15 * 60_000,
  lostTransitionGraceMs: 2 * 60_000,
  inFlightRecheckMs: 1_000,
  budgetOooLeadMs: 2_000,
  maxConflictRetries: 60,
  pendingLeaseMs: 30_000,
  eventRetentionMs: 7 * 86_400_000,
  backoffBaseS: 5,
  backoffMaxS: 900,
  keepPastMs: 3_600_000,
  verifyBeforeWrite: true,
  allowPrivateSourceAddresses: false,
};

/** SQS DelaySeconds maximum. */
const MAX_DELAY_S = 900;

export interface StatusPilotDeps {
  store: StatusStore;
  gateway: StatusGateway;
  transitionQueue: Queue<TransitionMessage>;
  clock: Clock;
  log: Log;
  tokens: TokenVault;
  options?: Partial<StatusPilotOptions>;
  newId?: () => string;
  /** The per-token budget shared by all workers; without it only the client's in-memory one applies. */
  rateBudget?: RateBudget;
}

export interface SourceInput {
  id: string;
  url: string;
  kind: SourceKind;
  secret?: string;
}

export interface UpsertUserInput {
  key: UserKey;
  tz: string;
  /** The plain token; stored sealed only. */
  token: string;
  /** The admin whose token this is, when it acts on `key.user`. */
  adminTokenUser?: string;
  emails?: string[];
  sources: SourceInput[];
  rules?: Record<string, unknown>;
  mode: UserMode;
}

/** A user as callers may see it: no token, no source secrets. */
export interface UserView {
  key: UserKey;
  tz: string;
  mode: UserMode;
  adminTokenUser?: string;
  emails: string[];
  sources: Array<{ id: string; kind: SourceKind; syncedAt?: number }>;
  rules: UserRules;
  needsReauth?: { code: string; at: number };
}

export interface StatusView {
  desired?: Block;
  actual: StatusState["actual"];
  lastWritten?: StatusValue;
  override?: StatusState["override"];
  nextTransitionAt?: number;
  needsReauth?: { code: string; at: number };
  pending?: StatusState["pending"];
}

export interface ChannelView {
  team: string;
  user: string;
  sourceId: string;
  secret?: string;
  /** The hook the channel was bound for; absent on bindings stored before kinds existed. */
  kind?: ChannelKind;
}

/** What `putChannel` binds a channel id to. */
export interface ChannelBindingInput {
  key: UserKey;
  sourceId: string;
  secret?: string;
  /** Omitted: a re-bind keeps the stored kind, a new binding has none (accepted by every hook). */
  kind?: ChannelKind;
}

/** One calendar source and its owner, as the sync reads it. */
export type SourceView = SyncSourceView;

const isZone = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

/** The same source rules as the admin API's, plus the address policy of where this runs. */
const upsertSchemaFor = (policy: SourceAddressPolicy) =>
  z.object({
    key: z.object({ team: z.string().min(1), user: z.string().min(1) }),
    tz: z.string().refine(isZone, "tz must be an IANA time zone, e.g. Europe/Berlin"),
    token: z.string().min(1),
    adminTokenUser: z.string().min(1).optional(),
    emails: z.array(z.string()).optional(),
    sources: z.array(
      z.object({
        id: sourceIdSchema,
        url: z.string().superRefine((url, ctx) => {
          const problem = sourceUrlProblem(url, policy);
          if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
        }),
        kind: sourceKindSchema,
        secret: z.string().min(1).optional(),
      }),
    ),
    rules: z.record(z.string(), z.unknown()).optional(),
    mode: z.enum(["auto", "paused"]),
  });

const notBlank = (v: string): boolean => v.trim().length > 0;

const oooSchema = z
  .object({
    start: z.number().int().nonnegative(),
    end: z.number().int().positive(),
    // The service refuses half statuses, so given text and emoji must not be blank.
    text: z.string().max(80).refine(notBlank, "text must not be empty").optional(),
    emoji: z
      .string()
      .regex(/^:[a-z0-9_+'-]+:$/, "emoji must be in colon form, e.g. :palm_tree:")
      .optional(),
  })
  .refine((v) => v.end > v.start, { message: "end must be after start", path: ["end"] });

const pointerOf = (path: PropertyKey[]): string => `/${path.map(String).join("/")}`;

function parseInput<T>(schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new InvalidInputError(issue?.message ?? "invalid input", pointerOf(issue?.path ?? []));
}

const newStatusRecord = (key: UserKey, now: number): StatusRecord => ({
  key,
  state: initialStatusState(),
  version: 0,
  updatedAt: now,
});

const outcomeOf = (d: Decision): ReconcileOutcome => d;

/** The record without a retry whose time has passed (kept while a write is due: its count paces the backoff). */
const withoutPassedRetry = (rec: StatusRecord, now: number): StatusRecord => {
  const { retry, ...state } = rec.state;
  return retry === undefined || retry.at > now ? rec : { ...rec, state };
};

/** Deterministic jitter in [0, 1) from the user and attempt, so retries spread without Math.random. */
const jitter = (seed: string): number => {
  let h = 2166136261;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619) >>> 0;
  return (h % 1000) / 1000;
};

/**
 * The use cases over the store, the status gateway, the transition queue and the clock.
 * Writes to one user's status item are conditional on its version; a lost race retries from a
 * fresh read. A status write is claimed on the item before it is sent, so concurrent reconciles
 * send it once.
 */
export class StatusPilot implements StatusUseCases, UserAdministration {
  private readonly store: StatusStore;
  private readonly gateway: StatusGateway;
  private readonly queue: Queue<TransitionMessage>;
  private readonly clock: Clock;
  private readonly log: Log;
  private readonly tokens: TokenVault;
  private readonly options: StatusPilotOptions;
  private readonly newId: () => string;
  private readonly rateBudget: RateBudget | undefined;

  constructor(deps: StatusPilotDeps) {
    this.store = deps.store;
    this.gateway = deps.gateway;
    this.queue = deps.transitionQueue;
    this.clock = deps.clock;
    this.log = deps.log;
    this.tokens = deps.tokens;
    this.options = { ...DEFAULT_OPTIONS, ...deps.options };
    this.newId = deps.newId ?? randomUUID;
    this.rateBudget = deps.rateBudget;
  }

  // ---- reconciliation -------------------------------------------------------------------

  async reconcileUser(key: UserKey): Promise<ReconcileOutcome> {
    for (let attempt = 0; attempt < this.options.maxConflictRetries; attempt++) {
      const now = this.clock.now();
      const snap = await this.store.loadUser(key);
      const user = snap.user;
      if (user === undefined) return { kind: "leave", reason: "unknown user" };
      const rec = snap.status ?? newStatusRecord(key, now);
      const expected = snap.status?.version;
      const reauth = rec.state.needsReauth;
      if (reauth !== undefined) return { kind: "needs_reauth", code: reauth.code };
      const timeline = this.timelineOf(snap, now);
      const desired = desiredAt(timeline, now);
      const { decision, inFlight, recheck, readFirst } =
        user.mode === "paused"
          ? { decision: { kind: "leave", reason: "paused" } as const }
          : decideForState(rec.state, desired, now, this.options.pendingLeaseMs);
      const target = decisionStatus(decision);
      const rejected = rec.state.rejected;
      const refused = (t: StatusValue): boolean =>
        rejected !== undefined && sameStatus(rejected.status, t);
      try {
        if (inFlight !== undefined) {
          const scheduled = this.withSchedule(rec, timeline, now);
          if (recheck !== true) {
            // The write in flight is what this reconcile would send: it is its sender's job.
            if (scheduled.changed) await this.putStatus(scheduled.rec, expected);
            return target === undefined ? outcomeOf(decision) : { kind: "nothing" };
          }
          // Something else is due once the write in flight lands: its sender decides again
          // right after recording it, and a message a second later covers a sender that died.
          const marked: StatusRecord = {
            ...scheduled.rec,
            state: { ...scheduled.rec.state, pending: { ...inFlight, recheck: true } },
          };
          if (inFlight.recheck !== true || scheduled.changed)
            await this.putStatus(marked, expected);
          const at = now + this.options.inFlightRecheckMs;
          await this.enqueue(key, at, "retry", now);
          return { kind: "rescheduled", at, code: "write_in_flight" };
        }
        let write =
          target === undefined || refused(target)
            ? undefined
            : { decision, target, state: rec.state };
        if (write === undefined && readFirst !== true) {
          return await this.settleUnwritten(rec, undefined, timeline, now, expected, decision);
        }
        const retry = rec.state.retry;
        if (retry !== undefined && retry.at > now) {
          // Honour Retry-After / backoff even when an event asks for a reconcile sooner.
          const scheduled = this.withSchedule(rec, timeline, now);
          if (scheduled.changed) await this.putStatus(scheduled.rec, expected);
          return { kind: "rescheduled", at: retry.at, code: retry.code };
        }
        // Every write reads first with verifyBeforeWrite; without it, only one whose decision
        // rests on a standing override or a same-second tie (the read is what settles them).
        const reads = this.options.verifyBeforeWrite || readFirst === true;
        if (reads) {
          // Read before claiming: the read lands in the store with the claim (one put), is
          // older than the write it verifies, and a conflict re-reads from scratch.
          const read = await this.readProfile(user, now);
          if (read.kind === "failed") return read.outcome;
          if (read.kind === "read") {
            const applied = applyRead(rec.state, read.status, read.at);
            // Final: a second read would show the same.
            const again = decideForState(applied.state, desired, now, this.options.pendingLeaseMs);
            const againTarget = decisionStatus(again.decision);
            this.logRead(key, rec.state, applied.result, now);
            if (againTarget === undefined || refused(againTarget)) {
              return await this.settleUnwritten(
                rec,
                applied.state,
                timeline,
                now,
                expected,
                again.decision,
              );
            }
            write = { decision: again.decision, target: againTarget, state: applied.state };
          }
        }
        // The read failed for a reason the set itself would report: act on the belief.
        if (write === undefined) {
          return await this.settleUnwritten(rec, undefined, timeline, now, expected, decision);
        }
        // Claimed (and so stamped as sent) no earlier than the read it follows.
        const claimAt = reads ? Math.max(now, this.clock.now()) : now;
        const scheduled = this.withSchedule({ ...rec, state: write.state }, timeline, now);
        const claimed: StatusRecord = {
          ...scheduled.rec,
          state: claimWrite(scheduled.rec.state, write.target, claimAt),
        };
        await this.putStatus(claimed, expected);
        return await this.send(
          user,
          write.target,
          write.decision,
          claimAt,
          desired?.kind === "ooo",
        );
      } catch (error: unknown) {
        if (error instanceof ConflictError) continue;
        throw error;
      }
    }
    this.log.warn("reconcile gave up after repeated conflicts", { team: key.team, user: key.user });
    return { kind: "conflict_retried_out" };
  }

  /**
   * Stores a reconcile that writes nothing: its schedule, what it read (`read`, when it read),
   * a retry whose time has passed dropped. Says why nothing was written.
   */
  private async settleUnwritten(
    rec: StatusRecord,
    read: StatusState | undefined,
    timeline: Block[],
    now: number,
    expected: number | undefined,
    decision: Decision,
  ): Promise<ReconcileOutcome> {
    const base = read === undefined ? rec : { ...rec, state: read };
    // No write is due: a retry whose time has passed has nothing left to retry.
    const cleaned = withoutPassedRetry(base, now);
    const scheduled = this.withSchedule(cleaned, timeline, now);
    if (read !== undefined || cleaned !== base || scheduled.changed) {
      await this.putStatus(scheduled.rec, expected);
    }
    if (decisionStatus(decision) !== undefined) {
      return {
        kind: "leave",
        reason: `the service refused this status (${rec.state.rejected?.code})`,
      };
    }
    return outcomeOf(decision);
  }

  /** Says what a read before a write found, when it changes what we believed. */
  private logRead(key: UserKey, before: StatusState, result: ReadResult, now: number): void {
    const ids = { team: key.team, user: key.user };
    const stood = before.override !== undefined && overrideActive(before.override.status, now);
    if (result === "manual" && !stood) {
      this.log.info("manual status found on the profile; left alone", ids);
    } else if (result !== "manual" && stood) {
      // Its clear's user_change was lost, or our write came after it in the same second.
      this.log.info("manual override no longer on the profile; dropped", ids);
    }
  }

  private async send(
    user: UserRecord,
    target: StatusValue,
    decision: Decision,
    sentAt: number,
    ooo: boolean,
  ): Promise<ReconcileOutcome> {
    const key = user.key;
    if (this.rateBudget !== undefined) {
      const tokenOwner = user.adminTokenUser ?? key.user;
      const slot = await this.rateBudget.take(`${key.team}#${tokenOwner}`, key.user, sentAt);
      if (!slot.ok) {
        // Out-of-office goes first into the next window: the others come a little later.
        const at = slot.retryAt + (ooo ? 0 : this.options.budgetOooLeadMs);
        return this.deferForBudget(key, sentAt, at);
      }
    }
    let actual: StatusValue;
    try {
      const token = await this.tokens.open(user.tokenSealed);
      ({ actual } = await this.gateway.setStatus(
        {
          key,
          token,
          ...(user.adminTokenUser !== undefined ? { adminUser: user.adminTokenUser } : {}),
        },
        target,
      ));
    } catch (error: unknown) {
      const failure =
        error instanceof GatewayError
          ? error
          : new GatewayError("status write failed", "unexpected", true, false, undefined, {
              cause: error,
            });
      return this.recordFailure(key, { target, sentAt }, failure);
    }
    let recheck = false;
    try {
      await this.mutateStatus(key, (rec, now) => {
        const pending = rec.state.pending;
        recheck = pending?.claimedAt === sentAt && pending.recheck === true;
        return { ...rec, state: recordWrite(rec.state, actual, now, sentAt) };
      });
    } catch (error: unknown) {
      // The service applied the write but we could not record it. The claim stays, so its
      // echo counts as ours, and the error makes the queue deliver the message again.
      this.log.error("status written but not recorded; the message will be retried", {
        team: key.team,
        user: key.user,
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
    this.log.info("status written", { team: key.team, user: key.user, kind: decision.kind });
    // Another reconcile found something else due while this write was in flight.
    if (recheck) await this.reconcileUser(key);
    return outcomeOf(decision);
  }

  /**
   * Reads what the profile shows before a write. A retryable failure is rescheduled like a
   * failed write and a final one stops the user's writes; any other leaves the write to the
   * events we observed, since the set itself will say what is wrong.
   */
  private async readProfile(
    user: UserRecord,
    now: number,
  ): Promise<
    | { kind: "read"; status: StatusValue; at: number }
    | { kind: "failed"; outcome: ReconcileOutcome }
    | { kind: "unverified" }
  > {
    const key = user.key;
    const at = this.clock.now();
    try {
      const token = await this.tokens.open(user.tokenSealed);
      const { actual } = await this.gateway.readStatus({
        key,
        token,
        ...(user.adminTokenUser !== undefined ? { adminUser: user.adminTokenUser } : {}),
      });
      return { kind: "read", status: actual, at: Math.max(at, now) };
    } catch (error: unknown) {
      const failure =
        error instanceof GatewayError
          ? error
          : new GatewayError("status read failed", "unexpected", true, false, undefined, {
              cause: error,
            });
      if (failure.final || failure.retryable) {
        return { kind: "failed", outcome: await this.recordFailure(key, undefined, failure) };
      }
      this.log.warn("status read failed; writing from the observed events", {
        team: key.team,
        user: key.user,
        code: failure.code,
      });
      return { kind: "unverified" };
    }
  }

  /** Releases a claim the rate budget stopped before sending, and schedules it for `at`. */
  private async deferForBudget(
    key: UserKey,
    sentAt: number,
    at: number,
  ): Promise<ReconcileOutcome> {
    await this.mutateStatus(key, (rec) => {
      const { pending, ...state } = rec.state;
      const kept = pending !== undefined && pending.claimedAt !== sentAt ? { pending } : {};
      // Not a failure: the backoff attempt count stays as it was.
      const attempt = rec.state.retry?.attempt ?? 0;
      return {
        ...rec,
        state: { ...state, ...kept, retry: { attempt, at, code: "rate_budget" } },
        nextTransitionAt: Math.min(rec.nextTransitionAt ?? Number.POSITIVE_INFINITY, at),
      };
    });
    const now = this.clock.now();
    if (at - now <= MAX_DELAY_S * 1000) await this.enqueue(key, at, "retry", now);
    this.log.info("status write waits for the rate budget", {
      team: key.team,
      user: key.user,
      at,
    });
    return { kind: "rescheduled", at, code: "rate_budget" };
  }

  /**
   * Records a failed write (`write` names it and its claim) or a failed read before a write
   * (`write` undefined: nothing was claimed or sent).
   */
  private async recordFailure(
    key: UserKey,
    write: { target: StatusValue; sentAt: number } | undefined,
    error: GatewayError,
  ): Promise<ReconcileOutcome> {
    const what = write === undefined ? "status read" : "status write";
    const log = { team: key.team, user: key.user, code: error.code };
    // A timeout or internal error may have applied the write: it stays an attempt.
    const release = (state: StatusState): StatusState =>
      write === undefined ? state : releaseWrite(state, write.sentAt);
    if (error.final) {
      this.log.warn(`${what} refused for good; the user must authorise again`, log);
      await this.mutateStatus(key, (rec, now) => {
        const state = release(rec.state);
        const { nextTransitionAt: _stopped, nextIsOoo: _ooo, ...rest } = rec;
        return { ...rest, state: { ...state, needsReauth: { code: error.code, at: now } } };
      });
      return { kind: "needs_reauth", code: error.code };
    }
    if (error.retryable) {
      let at = 0;
      await this.mutateStatus(key, (rec, now) => {
        const attempt = (rec.state.retry?.attempt ?? 0) + 1;
        const delayS =
          error.retryAfterS ??
          Math.min(this.options.backoffMaxS, this.options.backoffBaseS * 2 ** (attempt - 1)) *
            (0.5 + jitter(`${key.team}/${key.user}/${attempt}`) / 2);
        at = now + Math.ceil(delayS * 1000);
        const state = release(rec.state);
        const next = Math.min(rec.nextTransitionAt ?? Number.POSITIVE_INFINITY, at);
        return {
          ...rec,
          state: { ...state, retry: { attempt, at, code: error.code } },
          nextTransitionAt: next,
        };
      });
      this.log.info(`${what} rescheduled`, { ...log, at });
      const now = this.clock.now();
      // Beyond the queue's longest delay the due index (nextTransitionAt = at) brings it back.
      if (at - now <= MAX_DELAY_S * 1000) await this.enqueue(key, at, "retry", now);
      return { kind: "rescheduled", at, code: error.code };
    }
    if (write === undefined) {
      // readProfile records only retryable and final failures.
      return { kind: "leave", reason: `the profile could not be read (${error.code})` };
    }
    this.log.warn("status write refused; not sending this status again", log);
    await this.mutateStatus(key, (rec, now) => {
      const state = releaseWrite(rec.state, write.sentAt);
      return {
        ...rec,
        state: { ...state, rejected: { status: write.target, code: error.code, at: now } },
      };
    });
    return { kind: "leave", reason: `the service refused this status (${error.code})` };
  }

  // ---- events ----------------------------------------------------------------------------

  async recordUserChange(change: UserChange): Promise<boolean> {
    const key = change.key;
    const now = this.clock.now();
    if (await this.store.seenEvent(change.eventId, now)) return false;
    let result: ReturnType<typeof applyObservation>["result"] | undefined;
    let user: UserRecord | undefined;
    for (
      let attempt = 0;
      attempt < this.options.maxConflictRetries && result === undefined;
      attempt++
    ) {
      const snap = await this.store.loadUser(key);
      user = snap.user;
      if (user === undefined) {
        this.log.info("user_change for an unknown user skipped", {
          team: key.team,
          user: key.user,
        });
        return false;
      }
      const rec = snap.status ?? newStatusRecord(key, now);
      const applied = applyObservation(rec.state, change);
      if (applied.result === "duplicate") return false;
      const scheduled = this.withSchedule(
        { ...rec, state: applied.state },
        this.timelineOf(snap, now),
        now,
      );
      try {
        await this.putStatus(scheduled.rec, snap.status?.version);
        result = applied.result;
      } catch (error: unknown) {
        if (!(error instanceof ConflictError)) throw error;
      }
    }
    if (result === undefined) return false;
    await this.store.recordEvent(change.eventId, now + this.options.eventRetentionMs, now);
    if (
      change.tz !== undefined &&
      user !== undefined &&
      user.tz !== change.tz &&
      isZone(change.tz)
    ) {
      const tz = change.tz;
      await this.mutateUser(key, (u) => ({ ...u, tz }));
    }
    if (result !== "stale") await this.reconcileUser(key);
    return true;
  }

  async applyTimeline(key: UserKey, blocks: Block[], meta: TimelineMeta): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      if (attempt >= this.options.maxConflictRetries) {
        throw new ConflictError(
          `USER#${key.team}#${key.user}`,
          `TIMELINE#${meta.sourceId}`,
          undefined,
        );
      }
      const now = this.clock.now();
      const snap = await this.store.loadUser(key);
      if (snap.user === undefined) throw new UnknownUserError(key.team, key.user);
      if (!snap.user.sources.some((src) => src.id === meta.sourceId)) {
        // The user removed this calendar while it was being fetched: its blocks don't count.
        this.log.info("timeline of a source the user no longer has skipped", {
          team: key.team,
          user: key.user,
          sourceId: meta.sourceId,
        });
        return;
      }
      const existing = snap.timelines.find((t) => t.sourceId === meta.sourceId);
      const kept = blocks.filter((b) => b.end > now - this.options.keepPastMs && b.end > b.start);
      const record: TimelineRecord = {
        key,
        sourceId: meta.sourceId,
        blocks: kept,
        ...(meta.etag !== undefined ? { etag: meta.etag } : {}),
        ...(meta.hash !== undefined ? { hash: meta.hash } : {}),
        version: existing?.version ?? 0,
        updatedAt: now,
      };
      try {
        await this.store.putTimeline(record, existing?.version);
        break;
      } catch (error: unknown) {
        if (!(error instanceof ConflictError)) throw error;
      }
    }
    // Reconcile at once: decide() does nothing unless the block showing now changed.
    await this.reconcileUser(key);
  }

  // ---- the minute tick ---------------------------------------------------------------------

  async tick(): Promise<number> {
    const now = this.clock.now();
    // From 0: a transition missed by any amount (ticks lost, a worker down) is still found.
    const due = await this.store.dueBetween(0, now + this.options.tickHorizonMs);
    const lostBefore = now - this.options.lostTransitionGraceMs;
    const todo = due
      .filter(
        (r) =>
          r.nextTransitionAt !== undefined &&
          // Enqueued already, unless it is long overdue: then its message was lost.
          (r.enqueuedFor !== r.nextTransitionAt || r.nextTransitionAt < lostBefore),
      )
      .sort(
        (a, b) =>
          Number(b.nextIsOoo === true) - Number(a.nextIsOoo === true) ||
          (a.nextTransitionAt ?? 0) - (b.nextTransitionAt ?? 0),
      );
    let sent = 0;
    for (const rec of todo) {
      const at = rec.nextTransitionAt ?? now;
      await this.enqueue(rec.key, at, rec.nextIsOoo === true ? "ooo" : "transition", now);
      sent++;
      try {
        await this.store.putStatus({ ...rec, enqueuedFor: at }, rec.version);
      } catch (error: unknown) {
        // The user changed meanwhile; that write rescheduled them itself.
        if (!(error instanceof ConflictError)) throw error;
      }
    }
    return sent;
  }

  // ---- out of office -------------------------------------------------------------------

  async scheduleOutOfOffice(key: UserKey, input: OutOfOfficeInput): Promise<OutOfOfficeEntry> {
    const valid = parseInput(oooSchema, input);
    const now = this.clock.now();
    if (valid.end <= now)
      throw new InvalidInputError("the out-of-office period has already ended", "/end");
    const user = await this.store.getUser(key);
    if (user === undefined) throw new UnknownUserError(key.team, key.user);
    const rules = this.rulesOf(user);
    const entry: OutOfOfficeEntry = {
      id: this.newId(),
      start: valid.start,
      end: valid.end,
      text: valid.text ?? rules.ooo.text,
      emoji: valid.emoji ?? rules.ooo.emoji,
      createdAt: now,
    };
    await this.store.createOutOfOffice({ ...entry, key });
    await this.reconcileUser(key);
    return entry;
  }

  async listOutOfOffice(key: UserKey): Promise<OutOfOfficeEntry[]> {
    const now = this.clock.now();
    const snap = await this.store.loadUser(key);
    return snap.ooo
      .filter((e) => e.end > now)
      .sort((a, b) => a.start - b.start)
      .map(({ key: _key, ...entry }) => entry);
  }

  async cancelOutOfOffice(key: UserKey, id: string): Promise<boolean> {
    const removed = await this.store.deleteOutOfOffice(key, id);
    if (removed === undefined) return false;
    // If it was showing, the reconcile clears it (or shows the calendar's block instead).
    await this.reconcileUser(key);
    return true;
  }

  // ---- user administration ---------------------------------------------------------------

  async upsertUser(input: UpsertUserInput): Promise<UserView> {
    const policy = { allowPrivate: this.options.allowPrivateSourceAddresses };
    const valid = parseInput(upsertSchemaFor(policy), input);
    if (valid.rules !== undefined) {
      const rules = userRulesSchema.safeParse(valid.rules);
      if (!rules.success) {
        const issue = rules.error.issues[0];
        throw new InvalidInputError(
          issue?.message ?? "invalid rules",
          `/rules${pointerOf(issue?.path ?? [])}`,
        );
      }
    }
    const ids = valid.sources.map((s) => s.id);
    if (new Set(ids).size !== ids.length)
      throw new InvalidInputError("source ids must be unique", "/sources");
    const tokenSealed = await this.tokens.seal(valid.token);
    const sealedSecrets = await Promise.all(
      valid.sources.map((s) => (s.secret === undefined ? undefined : this.tokens.seal(s.secret))),
    );
    for (let attempt = 0; attempt < this.options.maxConflictRetries; attempt++) {
      const now = this.clock.now();
      const snap = await this.store.loadUser(valid.key);
      const existing = snap.user;
      const sources: SourceRecord[] = valid.sources.map((s, i) => {
        const old = existing?.sources.find((o) => o.id === s.id && o.url === s.url);
        const secretSealed = sealedSecrets[i];
        return {
          ...(old ?? {}),
          id: s.id,
          url: s.url,
          kind: s.kind,
          ...(secretSealed !== undefined ? { secretSealed } : {}),
        };
      });
      const record: UserRecord = {
        key: valid.key,
        tz: valid.tz,
        tokenSealed,
        ...(valid.adminTokenUser !== undefined ? { adminTokenUser: valid.adminTokenUser } : {}),
        emails: valid.emails ?? existing?.emails ?? [],
        sources,
        rules: valid.rules ?? existing?.rules ?? {},
        mode: valid.mode,
        version: existing?.version ?? 0,
        updatedAt: now,
      };
      try {
        const saved = await this.store.putUser(record, existing?.version);
        // A new token ends a re-authorisation stop.
        let resumed = false;
        await this.mutateStatus(valid.key, (rec) => {
          const { needsReauth: cleared, ...state } = rec.state;
          resumed = cleared !== undefined;
          return { ...rec, state };
        });
        // Timelines of calendars removed (or moved to another address) no longer count.
        const kept = (sourceId: string): boolean =>
          valid.sources.some(
            (src) =>
              src.id === sourceId &&
              existing?.sources.some((o) => o.id === src.id && o.url === src.url) === true,
          );
        const orphans = snap.timelines.filter((t) => !kept(t.sourceId));
        for (const t of orphans) await this.store.deleteTimeline(valid.key, t.sourceId);
        // Resumed: reconcile now, from the timelines already stored. No sync would apply them
        // again before its refresh window (the feeds did not change), and the stop left no
        // transition scheduled, so nothing else would write before then.
        if (resumed || (orphans.length > 0 && existing !== undefined))
          await this.reconcileUser(valid.key);
        return this.viewOf(saved, undefined);
      } catch (error: unknown) {
        if (!(error instanceof ConflictError)) throw error;
      }
    }
    throw new ConflictError("user", valid.key.user, undefined);
  }

  async getUser(key: UserKey): Promise<UserView | undefined> {
    const snap = await this.store.loadUser(key);
    return snap.user === undefined ? undefined : this.viewOf(snap.user, snap.status);
  }

  async userZone(key: UserKey): Promise<string | undefined> {
    return (await this.store.getUser(key))?.tz;
  }

  async getStatusView(key: UserKey): Promise<StatusView | undefined> {
    const now = this.clock.now();
    const snap = await this.store.loadUser(key);
    if (snap.user === undefined) return undefined;
    const rec = snap.status ?? newStatusRecord(key, now);
    const desired = desiredAt(this.timelineOf(snap, now), now);
    const s = rec.state;
    return {
      ...(desired !== undefined ? { desired } : {}),
      actual: s.actual,
      ...(s.lastWritten !== undefined ? { lastWritten: s.lastWritten } : {}),
      ...(s.override !== undefined && overrideActive(s.override.status, now)
        ? { override: s.override }
        : {}),
      ...(rec.nextTransitionAt !== undefined ? { nextTransitionAt: rec.nextTransitionAt } : {}),
      ...(s.needsReauth !== undefined ? { needsReauth: s.needsReauth } : {}),
      ...(s.pending !== undefined ? { pending: s.pending } : {}),
    };
  }

  async putChannel(channelId: string, binding: ChannelBindingInput): Promise<void> {
    const secretSealed =
      binding.secret === undefined ? undefined : await this.tokens.seal(binding.secret);
    const existing = await this.store.getChannel(channelId);
    const kind = binding.kind ?? existing?.kind;
    await this.store.putChannel(
      {
        channelId,
        key: binding.key,
        sourceId: binding.sourceId,
        ...(secretSealed !== undefined ? { secretSealed } : {}),
        ...(kind !== undefined ? { kind } : {}),
        version: existing?.version ?? 0,
      },
      existing?.version,
    );
  }

  async findChannel(channelId: string): Promise<ChannelView | undefined> {
    const c = await this.store.getChannel(channelId);
    if (c === undefined) return undefined;
    const secret =
      c.secretSealed === undefined ? undefined : await this.tokens.open(c.secretSealed);
    return {
      team: c.key.team,
      user: c.key.user,
      sourceId: c.sourceId,
      ...(secret !== undefined ? { secret } : {}),
      ...(c.kind !== undefined ? { kind: c.kind } : {}),
    };
  }

  /**
   * Every source of the users whose poll phase the poll run at `now` covers, through the poll
   * index: each source once per 15 minutes, at a fixed phase, so checks never move the index.
   */
  async sourcesDue(now: number): Promise<SyncMessage[]> {
    const { from, to } = pollPhasesEndedBy(now);
    const users = await this.store.usersToPoll(from, to);
    return users.flatMap((u) =>
      u.sources.map(
        (s): SyncMessage => ({
          team: u.key.team,
          user: u.key.user,
          sourceId: s.id,
          reason: "poll",
        }),
      ),
    );
  }

  async loadSource(key: UserKey, sourceId: string): Promise<SourceView | undefined> {
    const user = await this.store.getUser(key);
    const src = user?.sources.find((s) => s.id === sourceId);
    if (user === undefined || src === undefined) return undefined;
    return {
      url: src.url,
      tz: user.tz,
      emails: user.emails,
      rules: this.rulesOf(user),
      ...(src.etag !== undefined ? { etag: src.etag } : {}),
      ...(src.lastModified !== undefined ? { lastModified: src.lastModified } : {}),
      ...(src.hash !== undefined ? { hash: src.hash } : {}),
      ...(src.syncedAt !== undefined ? { syncedAt: src.syncedAt } : {}),
    };
  }

  async recordSourceSync(
    key: UserKey,
    sourceId: string,
    sync: { syncedAt: number; etag?: string; lastModified?: string; hash?: string },
  ): Promise<void> {
    await this.mutateUser(key, (u) => ({
      ...u,
      sources: u.sources.map((s) => (s.id === sourceId ? { ...s, ...sync } : s)),
    }));
  }

  // ---- helpers -----------------------------------------------------------------------------

  private rulesOf(user: UserRecord): UserRules {
    const parsed = userRulesSchema.safeParse(user.rules);
    if (parsed.success) return parsed.data;
    this.log.warn("stored rules are invalid; using the defaults", {
      team: user.key.team,
      user: user.key.user,
    });
    return DEFAULT_RULES;
  }

  /** The merged desired timeline: every source's blocks, outranked by scheduled out-of-office. */
  private timelineOf(snap: UserSnapshot, now: number): Block[] {
    const user = snap.user;
    const rules = user === undefined ? DEFAULT_RULES : this.rulesOf(user);
    const tz = user?.tz ?? "UTC";
    const segments: Segment[] = [];
    // Only calendars the user still has count; a removed one's timeline may linger a moment.
    const current = new Set(user?.sources.map((src) => src.id) ?? []);
    for (const t of snap.timelines) {
      if (!current.has(t.sourceId)) continue;
      for (const b of t.blocks) if (b.end > now) segments.push(b);
    }
    for (const e of snap.ooo) {
      if (e.end <= now) continue;
      segments.push({
        start: e.start,
        end: e.end,
        kind: "ooo",
        text: outOfOfficeText(e.text, e.end, tz, rules.locale, e.start),
        emoji: e.emoji,
      });
    }
    return resolveSegments(segments, { bridgeGapMinutes: rules.bridgeGapMinutes });
  }

  /** Fills in the next transition (or override end, or retry) and whether it changed. */
  private withSchedule(
    rec: StatusRecord,
    timeline: Block[],
    now: number,
  ): { rec: StatusRecord; changed: boolean } {
    const candidates: number[] = [];
    const edge = nextWakeAfter(timeline, now);
    if (edge !== undefined) candidates.push(edge);
    const override = rec.state.override?.status;
    if (override !== undefined && override.expiration > 0 && override.expiration * 1000 > now) {
      candidates.push(override.expiration * 1000);
    }
    const retryAt = rec.state.retry?.at;
    if (retryAt !== undefined && retryAt > now) candidates.push(retryAt);
    const next =
      rec.state.needsReauth === undefined && candidates.length > 0
        ? Math.min(...candidates)
        : undefined;
    const nextIsOoo = next !== undefined && desiredAt(timeline, next)?.kind === "ooo";
    const { nextTransitionAt: _old, nextIsOoo: _oldOoo, ...rest } = rec;
    const updated: StatusRecord = {
      ...rest,
      updatedAt: now,
      ...(next !== undefined ? { nextTransitionAt: next, nextIsOoo } : {}),
    };
    const changed =
      rec.version === 0 ||
      rec.nextTransitionAt !== next ||
      (next !== undefined && rec.nextIsOoo !== nextIsOoo);
    return { rec: updated, changed };
  }

  private async putStatus(rec: StatusRecord, expected: number | undefined): Promise<void> {
    const saved = await this.store.putStatus(rec, expected);
    const now = this.clock.now();
    const at = saved.nextTransitionAt;
    // The tick may already have passed this window; enqueue a close transition directly.
    if (at !== undefined && at < now + this.options.tickHorizonMs && saved.enqueuedFor !== at) {
      await this.enqueue(saved.key, at, saved.nextIsOoo === true ? "ooo" : "transition", now);
      try {
        await this.store.putStatus({ ...saved, enqueuedFor: at }, saved.version);
      } catch (error: unknown) {
        if (!(error instanceof ConflictError)) throw error;
      }
    }
  }

  private async mutateStatus(
    key: UserKey,
    fn: (rec: StatusRecord, now: number) => StatusRecord,
  ): Promise<void> {
    for (let attempt = 0; attempt < this.options.maxConflictRetries; attempt++) {
      const now = this.clock.now();
      const current = await this.store.getStatus(key);
      try {
        await this.store.putStatus(
          { ...fn(current ?? newStatusRecord(key, now), now), updatedAt: now },
          current?.version,
        );
        return;
      } catch (error: unknown) {
        if (!(error instanceof ConflictError)) throw error;
      }
    }
    throw new ConflictError(`USER#${key.team}#${key.user}`, "STATUS", undefined);
  }

  private async mutateUser(key: UserKey, fn: (u: UserRecord) => UserRecord): Promise<void> {
    for (let attempt = 0; attempt < this.options.maxConflictRetries; attempt++) {
      const current = await this.store.getUser(key);
      if (current === undefined) throw new UnknownUserError(key.team, key.user);
      try {
        await this.store.putUser({ ...fn(current), updatedAt: this.clock.now() }, current.version);
        return;
      } catch (error: unknown) {
        if (!(error instanceof ConflictError)) throw error;
      }
    }
    throw new ConflictError(`USER#${key.team}#${key.user}`, "PROFILE", undefined);
  }

  private async enqueue(
    key: UserKey,
    at: number,
    reason: TransitionMessage["reason"],
    now: number,
  ): Promise<void> {
    const delaySeconds = Math.min(MAX_DELAY_S, Math.max(0, Math.ceil((at - now) / 1000)));
    await this.queue.send(
      { team: key.team, user: key.user, at, reason },
      { delaySeconds, dedupeKey: `${key.team}#${key.user}#${at}` },
    );
  }

  private viewOf(user: UserRecord, status: StatusRecord | undefined): UserView {
    const reauth = status?.state.needsReauth;
    return {
      key: user.key,
      tz: user.tz,
      mode: user.mode,
      ...(user.adminTokenUser !== undefined ? { adminTokenUser: user.adminTokenUser } : {}),
      emails: user.emails,
      sources: user.sources.map((s) => ({
        id: s.id,
        kind: s.kind,
        ...(s.syncedAt !== undefined ? { syncedAt: s.syncedAt } : {}),
      })),
      rules: this.rulesOf(user),
      ...(reauth !== undefined ? { needsReauth: reauth } : {}),
    };
  }
}
