import {
  envelopeSchema,
  eventCallbackSchema,
  header,
  RecentIds,
  toUserChange,
  urlVerificationSchema,
  userChangeEventSchema,
  verifyV0,
} from "../../lib/webhooks";
import { httpHandler, json, parseJsonBody, parseWith, text } from "../shared/http";

/** The service gives up after 3 s; answer before that even if the store is slow. */
export const ACK_DEADLINE_MS = 2500;
const recent = new RecentIds();

/** POST /service/events: the service's Events API endpoint. */
export const handler = httpHandler(async (req, app) => {
  verifyV0(
    await app.signingSecret(),
    {
      rawBody: req.rawBody,
      timestamp: header(req.headers, "x-svc-request-timestamp"),
      signature: header(req.headers, "x-svc-signature"),
    },
    app.clock.now(),
  );
  const envelope = parseJsonBody(envelopeSchema, req.rawBody);
  if (envelope.type === "url_verification") {
    return text(200, parseWith(urlVerificationSchema, envelope).challenge);
  }
  if (envelope.type !== "event_callback") return json(200, { ok: true, ignored: envelope.type });
  const callback = parseWith(eventCallbackSchema, envelope);
  const retry = header(req.headers, "x-svc-retry-num");
  app.log.appendKeys({ eventId: callback.event_id, ...(retry ? { retryNum: retry } : {}) });
  if (callback.event.type !== "user_change") {
    return json(200, { ok: true, ignored: callback.event.type });
  }
  const change = toUserChange(callback, parseWith(userChangeEventSchema, callback.event));
  app.log.appendKeys({ user: change.key.user });
  if (recent.checkAndAdd(callback.event_id, app.clock.now())) {
    app.log.info("duplicate event ignored", { retry: retry !== undefined });
    return json(200, { ok: true, duplicate: true });
  }
  const recorded = app.useCases.recordUserChange(change).catch((error: unknown) => {
    recent.forget(callback.event_id); // let the service's retry try again
    throw error;
  });
  const outcome = await Promise.race([
    recorded,
    new Promise<"late">((resolve) => setTimeout(() => resolve("late"), ACK_DEADLINE_MS).unref()),
  ]);
  if (outcome === "late") {
    // Acknowledge now; a queued reconcile makes sure the change is acted on regardless.
    app.log.warn("acknowledged before recording finished");
    await app.transitionQueue.send({ ...change.key, at: app.clock.now(), reason: "user_change" });
    recorded.catch(() => undefined);
    return json(200, { ok: true, deferred: true });
  }
  return json(200, { ok: true, duplicate: !outcome });
});
