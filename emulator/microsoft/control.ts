/**
 * The Microsoft emulator's control surface, under `/_control/`: what a test, the demo or a
 * person uses to act as the user (edit events: the edit notifies, as Outlook does) and as the
 * service (lifecycle events, faults). Not part of Microsoft's API.
 */
import type { Answer } from "./http";
import { type EventInput, EventInputError } from "./model";

export interface ControlActions {
  state(): Record<string, unknown>;
  createEvent(userId: string, input: EventInput): string;
  updateEvent(userId: string, eventId: string, input: EventInput): void;
  deleteEvent(userId: string, eventId: string): void;
  revokeRefreshTokens(userId: string): number;
  /** `remove`, `reauthorize`, `missed`, `silence`: false when no such subscription. */
  subscriptionAction(action: string, id: string): boolean;
  setFaults(faults: Record<string, unknown>): Record<string, unknown>;
  /** The longest lifetime granted (seconds); undefined: what is asked. */
  setGrantedLifetime(maxS: number | undefined): void;
  sweep(): number;
}

const ok = (body: Record<string, unknown> = {}): Answer => ({
  status: 200,
  body: { ok: true, ...body },
});
const fail = (status: number, error: string): Answer => ({ status, body: { ok: false, error } });

/** One control request; `doc` is its JSON body (an empty object for GET and DELETE). */
export function controlRequest(
  actions: ControlActions,
  method: string,
  path: string,
  doc: Record<string, unknown>,
): Answer {
  if (method === "GET" && path === "/_control/state") return ok(actions.state());
  try {
    const ev = path.match(/^\/_control\/users\/([^/]+)\/events(?:\/([^/]+))?$/);
    if (ev?.[1]) {
      const userId = decodeURIComponent(ev[1]);
      const eventId = ev[2] === undefined ? undefined : decodeURIComponent(ev[2]);
      if (method === "POST" && eventId === undefined) {
        return ok({ id: actions.createEvent(userId, doc as EventInput) });
      }
      if (method === "PATCH" && eventId) {
        actions.updateEvent(userId, eventId, doc as EventInput);
        return ok();
      }
      if (method === "DELETE" && eventId) {
        actions.deleteEvent(userId, eventId);
        return ok();
      }
    }
    const revoke = path.match(/^\/_control\/users\/([^/]+)\/revoke$/);
    if (revoke?.[1] && method === "POST") {
      return ok({ revoked: actions.revokeRefreshTokens(decodeURIComponent(revoke[1])) });
    }
    const life = path.match(
      /^\/_control\/subscriptions\/([^/]+)\/(remove|reauthorize|missed|silence)$/,
    );
    if (life?.[1] && life[2] && method === "POST") {
      return actions.subscriptionAction(life[2], decodeURIComponent(life[1]))
        ? ok()
        : fail(404, "no such subscription");
    }
    if (path === "/_control/faults" && method === "POST")
      return ok({ faults: actions.setFaults(doc) });
    if (path === "/_control/sweep" && method === "POST") return ok({ expired: actions.sweep() });
    if (path === "/_control/granted-lifetime" && method === "POST") {
      const maxS = doc.maxS;
      const keys = Object.keys(doc);
      if (
        keys.length !== 1 ||
        (maxS !== null && !(typeof maxS === "number" && Number.isInteger(maxS) && maxS > 0))
      ) {
        return {
          status: 400,
          body: {
            ok: false,
            error: "body must be {maxS: a positive integer, or null}",
            pointer: "/maxS",
          },
        };
      }
      actions.setGrantedLifetime(maxS ?? undefined);
      return ok({ grantedLifetimeS: maxS });
    }
  } catch (err: unknown) {
    if (err instanceof EventInputError) {
      return { status: 400, body: { ok: false, error: err.message, pointer: err.pointer } };
    }
    throw err;
  }
  return fail(404, "not_found");
}
