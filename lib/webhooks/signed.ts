import type { Clock } from "#lib/core/clock";
import type { WebhookRequest } from "#lib/http/request";
import { header, verifyV0 } from "#lib/http/signature";

/**
 * Checks a request the service signed (events, slash commands, interactions): its v0 signature
 * over the raw body and its timestamp within the replay window, on the injected clock. Throws a
 * WebhookError saying why; returns nothing for a genuine, fresh request.
 */
export async function verifyServiceRequest(
  req: WebhookRequest,
  deps: { signingSecret(): Promise<string>; clock: Clock },
): Promise<void> {
  verifyV0(
    await deps.signingSecret(),
    {
      rawBody: req.rawBody,
      timestamp: header(req.headers, "x-svc-request-timestamp"),
      signature: header(req.headers, "x-svc-signature"),
    },
    deps.clock.now(),
  );
}
