import * as z from "zod";
import { UnknownUserError } from "#lib/app/errors";
import { HOME_ACTIONS } from "#lib/app/notify/home-blocks";
import type { NotifyParts } from "#lib/app/notify/parts";
import { workspaceIdSchema } from "#lib/core/ids";
import type { UserMode } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { WebhookInputError } from "#lib/http/errors";
import {
  jsonReply,
  parseJsonInput,
  textReply,
  type WebhookReply,
  type WebhookRequest,
} from "#lib/http/request";
import type { WebhookDeps } from "./deps";
import { verifyServiceRequest } from "./signed";

/** The longest `payload` taken: a Home view's payload carries the view, up to 250 KB. */
export const MAX_PAYLOAD_LENGTH = 400_000;

/** A click after Sync now: the Home tab is published again once the reads have had this long. */
export const SYNC_NOW_REFRESH_S = 15;

const actionSchema = z
  .object({
    action_id: z.string().min(1).max(255),
    value: z.string().max(2000).optional(),
  })
  .loose();

/** What a `block_actions` payload carries that the app reads (the platform's reference). */
export const interactionSchema = z
  .object({
    type: z.string().min(1).max(64),
    user: z.object({ id: workspaceIdSchema, team_id: workspaceIdSchema.optional() }).loose(),
    team: z.object({ id: workspaceIdSchema }).loose().nullable().optional(),
    actions: z.array(actionSchema).max(25).default([]),
  })
  .loose();

export interface InteractionDeps extends Pick<WebhookDeps, "clock" | "log" | "signingSecret"> {
  /** Stores the mode at once and queues the reconcile (lib/app/people/slash-commands.ts). */
  chatCommands?: { setMode(key: UserKey, mode: UserMode): Promise<UserMode> };
  notify?: Pick<NotifyParts, "queue" | "syncNow">;
}

/**
 * POST /service/interactive: a click on a button of the Home tab or of a message, signed like
 * the events (v0 over the raw body, the replay window). The body is a form with one field,
 * `payload`, the interaction's JSON. Answered within the service's 3 s: every click stores at
 * most one small item and queues the rest (the reconcile, the reads, the Home tab's next view);
 * the service wants an empty 200. A click of someone Statuspilot does not know changes nothing.
 */
export async function handleInteraction(
  req: WebhookRequest,
  deps: InteractionDeps,
): Promise<WebhookReply> {
  await verifyServiceRequest(req, deps);
  const raw = new URLSearchParams(req.rawBody).get("payload");
  if (raw === null || raw.length > MAX_PAYLOAD_LENGTH) {
    throw new WebhookInputError(
      "the form has no payload of at most 400,000 characters",
      "/payload",
    );
  }
  const payload = parseJsonInput(interactionSchema, raw);
  if (payload.type !== "block_actions") return jsonReply(200, { ok: true, ignored: payload.type });
  const team = payload.team?.id ?? payload.user.team_id;
  if (team === undefined) throw new WebhookInputError("the payload names no team", "/team");
  const key = { team, user: payload.user.id };
  deps.log.appendKeys({ user: key.user });
  try {
    for (const action of payload.actions) await act(deps, key, action.action_id);
  } catch (error: unknown) {
    if (!(error instanceof UnknownUserError)) throw error;
    deps.log.info("a click of someone Statuspilot does not know ignored");
  }
  return textReply(200, "");
}

async function act(deps: InteractionDeps, key: UserKey, actionId: string): Promise<void> {
  switch (actionId) {
    case HOME_ACTIONS.pause:
    case HOME_ACTIONS.resume: {
      const setMode = deps.chatCommands?.setMode;
      if (setMode === undefined) throw new Error("the app has no chat commands");
      // The mode's change queues the Home tab's next view itself.
      await setMode(key, actionId === HOME_ACTIONS.pause ? "paused" : "auto");
      deps.log.info("Home tab click", { action: actionId });
      return;
    }
    case HOME_ACTIONS.syncNow: {
      const outcome = await deps.notify?.syncNow(key);
      deps.log.info("Home tab click", { action: actionId, outcome: outcome?.kind });
      // The reads run now; the Home tab shows them once they have had their seconds.
      if (outcome?.kind === "queued") {
        await deps.notify?.queue(key, { force: true, delaySeconds: SYNC_NOW_REFRESH_S });
      }
      return;
    }
    case HOME_ACTIONS.openSettings:
      // The link was followed, and so spent: the Home tab gets a fresh one.
      await deps.notify?.queue(key, { force: true });
      return;
    default:
      // Links (Reconnect, Add to) open in the browser; the click itself asks nothing.
      deps.log.debug("Home tab click needs nothing", { action: actionId });
  }
}
