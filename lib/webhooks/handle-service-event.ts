import type * as z from "zod";
import {
  jsonReply,
  parseInput,
  parseJsonInput,
  textReply,
  type WebhookReply,
  type WebhookRequest,
} from "#lib/http/request";
import { header } from "#lib/http/signature";
import type { WebhookDeps } from "./deps";
import {
  appHomeOpenedEventSchema,
  EVERY_TIME,
  type EventOnce,
  envelopeSchema,
  eventCallbackSchema,
  type RecentIds,
  tokensRevokedEventSchema,
  toUserChange,
  urlVerificationSchema,
  userChangeEventSchema,
} from "./service-events";
import { verifyServiceRequest } from "./signed";

/** The service gives up after 3 s; answer before that even if the store is slow. */
export const ACK_DEADLINE_MS = 2500;

export interface ServiceEventOptions {
  ackDeadlineMs?: number;
  /**
   * Records each event_id at most once, so a retry of a handled event is answered without
   * recording it again. Without one, every delivery is recorded (recording is idempotent too).
   */
  once?: EventOnce;
  /** An in-process `once` (tests written before `once`). */
  recent?: RecentIds;
}

/**
 * POST /service/events: verifies the signature, echoes url_verification, and records a
 * `user_change` (which reconciles the user). When recording outlasts the acknowledgement
 * deadline, the whole change goes on the transition queue and the worker records it (by
 * event_id, idempotently): on Lambda, work left running after the answer is frozen, not done.
 */
export async function handleServiceEvent(
  req: WebhookRequest,
  deps: WebhookDeps,
  options: ServiceEventOptions = {},
): Promise<WebhookReply> {
  const once = options.once ?? options.recent ?? EVERY_TIME;
  await verifyServiceRequest(req, deps);
  const envelope = parseJsonInput(envelopeSchema, req.rawBody);
  if (envelope.type === "url_verification") {
    return textReply(200, parseInput(urlVerificationSchema, envelope).challenge);
  }
  if (envelope.type !== "event_callback")
    return jsonReply(200, { ok: true, ignored: envelope.type });
  const callback = parseInput(eventCallbackSchema, envelope);
  const retry = header(req.headers, "x-svc-retry-num");
  deps.log.appendKeys({ eventId: callback.event_id, ...(retry ? { retryNum: retry } : {}) });
  if (callback.event.type === "tokens_revoked" || callback.event.type === "app_uninstalled") {
    return handleRemoval(deps, once, callback);
  }
  if (callback.event.type === "app_home_opened") return handleHomeOpened(deps, callback);
  if (callback.event.type !== "user_change") {
    return jsonReply(200, { ok: true, ignored: callback.event.type });
  }
  const change = toUserChange(callback, parseInput(userChangeEventSchema, callback.event));
  deps.log.appendKeys({ user: change.key.user });
  // The deadline covers the gate's own store calls too: the answer never waits past it.
  // An event that tells nothing new is a no-op: it costs one read, not the gate's two writes.
  const record = async () => {
    const known = await deps.useCases.isNothingNew?.(change);
    if (known === "duplicate") return undefined;
    if (known === "echo") return { value: true };
    return once.run(callback.event_id, () => deps.useCases.recordUserChange(change));
  };
  const outcome = await recordWithinDeadline(record(), options.ackDeadlineMs ?? ACK_DEADLINE_MS);
  if (outcome.kind === "late") {
    deps.log.warn("acknowledged before recording finished; the change is queued");
    await deps.transitionQueue.send(
      { ...change.key, at: deps.clock.now(), reason: "user_change", change },
      { dedupeKey: change.eventId },
    );
    return jsonReply(200, { ok: true, deferred: true });
  }
  if (outcome.kind === "failed") throw outcome.error; // the gate forgot it: the retry records
  if (outcome.kind === "duplicate") {
    deps.log.info("duplicate event ignored", { retry: retry !== undefined });
    return jsonReply(200, { ok: true, duplicate: true });
  }
  if (outcome.recorded) return jsonReply(200, { ok: true, duplicate: false });
  // Nothing recorded: either a duplicate event_id, or a user Statuspilot does not know.
  if ((await deps.admin.userZone(change.key)) === undefined) {
    deps.log.info("user_change for an unknown user ignored");
    return jsonReply(200, { ok: true, ignored: "unknown_user" });
  }
  return jsonReply(200, { ok: true, duplicate: true });
}

/**
 * `tokens_revoked` and `app_uninstalled`: the users concerned are stopped (store writes only,
 * no service call), once per event_id. Both are idempotent, so a retry that runs again is
 * harmless; they are done before answering, since on Lambda nothing runs after the answer.
 */
async function handleRemoval(
  deps: WebhookDeps,
  once: EventOnce,
  callback: z.infer<typeof eventCallbackSchema>,
): Promise<WebhookReply> {
  const team = callback.team_id;
  const ran = await once.run(callback.event_id, () => {
    if (callback.event.type === "app_uninstalled") {
      return deps.useCases.recordAppUninstalled(team);
    }
    const revoked = parseInput(tokensRevokedEventSchema, callback.event);
    return deps.useCases.recordTokensRevoked(team, revoked.tokens.oauth);
  });
  if (ran === undefined) return jsonReply(200, { ok: true, duplicate: true });
  return jsonReply(200, { ok: true, stopped: ran.value });
}

/**
 * `app_home_opened`: the person opened the app's Home. Its view is made and published by the
 * transition worker (a read of their records, a KMS open of the bot token, `views.publish`), so
 * the answer never waits on it; the Messages tab asks for nothing.
 */
async function handleHomeOpened(
  deps: WebhookDeps,
  callback: z.infer<typeof eventCallbackSchema>,
): Promise<WebhookReply> {
  const opened = parseInput(appHomeOpenedEventSchema, callback.event);
  if (opened.tab !== undefined && opened.tab !== "home") {
    return jsonReply(200, { ok: true, ignored: `${opened.tab}_tab` });
  }
  if (deps.notify === undefined) return jsonReply(200, { ok: true, ignored: "app_home_opened" });
  deps.log.appendKeys({ user: opened.user });
  await deps.notify.queue({ team: callback.team_id, user: opened.user }, { force: true });
  return jsonReply(200, { ok: true, queued: "home" });
}

type Recording =
  | { kind: "done"; recorded: boolean }
  | { kind: "duplicate" }
  | { kind: "late" }
  | { kind: "failed"; error: unknown };

/** Waits for the gated recording, or gives up waiting (not recording) once the deadline passes. */
async function recordWithinDeadline(
  gated: Promise<{ value: boolean } | undefined>,
  deadlineMs: number,
): Promise<Recording> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const recorded = gated.then(
    (ran): Recording => (ran ? { kind: "done", recorded: ran.value } : { kind: "duplicate" }),
    (error: unknown): Recording => ({ kind: "failed", error }),
  );
  const late = new Promise<Recording>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "late" }), deadlineMs);
  });
  try {
    return await Promise.race([recorded, late]);
  } finally {
    clearTimeout(timer);
  }
}
