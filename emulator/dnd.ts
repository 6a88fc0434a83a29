/**
 * Do Not Disturb (an extension beyond the spec, after the platform's public reference for
 * `dnd.setSnooze`, `dnd.endSnooze` and `dnd.info`): a person's snooze, which ends on the
 * emulator's clock. Nobody has a DND schedule here, so `dnd_enabled` is false and the next
 * scheduled DND is `1`, as the platform answers for a person without one.
 */
import { MAX_SNOOZE_MINUTES } from "./dnd-state";
import { authenticate, type CallContext, fail, type MethodResult } from "./methods";
import { stringArg } from "./request";
import { rateLimited, type TierLimiter } from "./tiers";

/** No DND schedule: the platform reports `1` for the next scheduled start and end. */
const NO_SCHEDULE = { dnd_enabled: false, next_dnd_start_ts: 1, next_dnd_end_ts: 1 };

type Method = (ctx: CallContext) => MethodResult;

/** Each method's token types, scope and rate tier, per the reference. */
const RULES = {
  "dnd.setSnooze": { types: ["user"], scope: "dnd:write", tier: "tier2" },
  "dnd.endSnooze": { types: ["user"], scope: "dnd:write", tier: "tier2" },
  "dnd.info": { types: ["user", "bot"], scope: "dnd:read", tier: "tier3" },
} as const;

export function dndMethods(tiers: TierLimiter): Record<string, Method> {
  const nowS = (ctx: CallContext) => Math.floor(ctx.now / 1000);

  /** Section 5's checks, then the method's tier: the caller, or the refusal to answer. */
  const admit = (
    ctx: CallContext,
    method: keyof typeof RULES,
  ): { ok: true; caller: string } | { ok: false; result: MethodResult } => {
    const rule = RULES[method];
    const auth = authenticate(ctx, rule.types, rule.scope);
    if (!auth.ok) return auth;
    const slow = rateLimited(tiers, rule.tier, method, ctx, auth.token);
    return slow ? { ok: false, result: slow } : { ok: true, caller: auth.token.user };
  };

  const setSnooze: Method = (ctx) => {
    const gate = admit(ctx, "dnd.setSnooze");
    if (!gate.ok) return gate.result;
    const caller = gate.caller;
    const arg = stringArg(ctx.args, "num_minutes");
    if (!arg.ok) return { ...fail(arg.code), caller };
    const raw = arg.value?.trim();
    if (raw === undefined || raw === "") return { ...fail("missing_duration"), caller };
    if (!/^\d+$/.test(raw) || Number(raw) < 1) return { ...fail("invalid_arguments"), caller };
    const minutes = Number(raw);
    if (minutes > MAX_SNOOZE_MINUTES) return { ...fail("too_long"), caller };
    const end = nowS(ctx) + minutes * 60;
    ctx.model.dnd.snooze(caller, end);
    const body = {
      ok: true,
      snooze_enabled: true,
      snooze_endtime: end,
      snooze_remaining: end - nowS(ctx),
      snooze_is_indefinite: false,
    };
    return { status: 200, body, caller, target: caller };
  };

  const endSnooze: Method = (ctx) => {
    const gate = admit(ctx, "dnd.endSnooze");
    if (!gate.ok) return gate.result;
    const caller = gate.caller;
    if (ctx.model.dnd.snoozeEnd(caller, nowS(ctx)) === undefined)
      return { ...fail("snooze_not_active"), caller, target: caller };
    ctx.model.dnd.end(caller);
    const body = { ok: true, ...NO_SCHEDULE, snooze_enabled: false };
    return { status: 200, body, caller, target: caller };
  };

  const info: Method = (ctx) => {
    const gate = admit(ctx, "dnd.info");
    if (!gate.ok) return gate.result;
    const caller = gate.caller;
    const arg = stringArg(ctx.args, "user");
    if (!arg.ok) return { ...fail(arg.code), caller };
    const target = arg.value === undefined || arg.value === "" ? caller : arg.value;
    if (!ctx.model.users.has(target)) return { ...fail("user_not_found"), caller, target };
    const body: Record<string, unknown> = { ok: true, ...NO_SCHEDULE };
    // "All of the snooze_* properties will only be visible if the user being queried is also
    // the current user"; the end and the remaining time only while a snooze is on.
    if (target === caller) {
      const end = ctx.model.dnd.snoozeEnd(caller, nowS(ctx));
      body.snooze_enabled = end !== undefined;
      if (end !== undefined) {
        body.snooze_endtime = end;
        body.snooze_remaining = end - nowS(ctx);
      }
      body.snooze_is_indefinite = false;
    }
    return { status: 200, body, caller, target };
  };

  return { "dnd.setSnooze": setSnooze, "dnd.endSnooze": endSnooze, "dnd.info": info };
}
