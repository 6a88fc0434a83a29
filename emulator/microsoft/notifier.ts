/**
 * Outbound calls of the Microsoft emulator: the validation handshake a subscription's endpoints
 * must answer before it exists, change notifications, and lifecycle notifications. Delivery is
 * asynchronous (the edit that caused it does not wait); a non-2xx answer, a connection failure
 * or no answer in time fails an attempt, and failed attempts are retried after the configured
 * delays. When every attempt of a change notification failed, a `missed` lifecycle notification
 * goes to the subscription's lifecycle URL, as Graph does for notifications it could not deliver.
 */
import type { Clock } from "#lib/core/clock";
import { DeliveryJobs } from "../delivery-jobs";
import { graphInstant } from "./http";
import type { ChangeType, StoredEvent, StoredSubscription } from "./model";

export type LifecycleEvent = "reauthorizationRequired" | "subscriptionRemoved" | "missed";

export interface DeliveryRecord {
  at: number;
  subscriptionId: string;
  kind: "change" | "lifecycle";
  /** The changeType or lifecycleEvent. */
  event: string;
  attempt: number;
  outcome: "delivered" | "failed" | "given_up";
  status?: number;
}

export interface NotifierOptions {
  clock: Clock;
  tenantId: string;
  /** How long the handshake may take; Graph documents 10 s. */
  validationTimeoutMs: number;
  attemptTimeoutMs: number;
  /** Delays before retries 1..n (wall-clock). */
  retryDelaysMs: number[];
}

/** Graph's POST of `?validationToken=` to an endpoint; true when it echoed the token in time. */
export async function validateEndpoint(
  url: string,
  validationToken: string,
  timeoutMs: number,
): Promise<boolean> {
  const target = new URL(url);
  target.searchParams.set("validationToken", validationToken);
  try {
    const res = await fetch(target, {
      method: "POST",
      headers: { "content-type": "text/plain; charset=utf-8" },
      body: "",
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    const type = res.headers.get("content-type") ?? "";
    return (
      res.status === 200 && type.toLowerCase().startsWith("text/plain") && text === validationToken
    );
  } catch {
    return false;
  }
}

export class Notifier {
  private readonly jobs = new DeliveryJobs();
  private readonly log: DeliveryRecord[] = [];

  constructor(private readonly opts: NotifierOptions) {}

  deliveries(): DeliveryRecord[] {
    return this.log.map((d) => ({ ...d }));
  }

  pendingCount(): number {
    return this.jobs.count();
  }

  /** Notifications on their way (not between a failed attempt and its retry). */
  underway(): number {
    return this.jobs.underway();
  }

  /** Resolves when every delivery so far, retries included, has settled. */
  flush(): Promise<void> {
    return this.jobs.flush();
  }

  close(): void {
    this.jobs.close();
  }

  /** A change notification for one event, to the subscription's notificationUrl. */
  change(
    sub: StoredSubscription,
    changeType: ChangeType,
    eventId: string,
    event?: StoredEvent,
  ): void {
    const resource = `Users/${sub.userId}/Events/${eventId}`;
    const note: Record<string, unknown> = {
      subscriptionId: sub.id,
      subscriptionExpirationDateTime: graphInstant(sub.expiresAt),
      changeType,
      resource,
      resourceData: {
        "@odata.type": "#Microsoft.Graph.Event",
        "@odata.id": resource,
        ...(event ? { "@odata.etag": `W/"${event.changeKey}"` } : {}),
        id: eventId,
      },
      tenantId: this.opts.tenantId,
    };
    if (sub.clientState !== undefined) note.clientState = sub.clientState;
    this.track(this.deliver(sub, sub.notificationUrl, { value: [note] }, "change", changeType, 0));
  }

  /** A lifecycle notification; a subscription without a lifecycle URL gets none (as on Graph). */
  lifecycle(sub: StoredSubscription, lifecycleEvent: LifecycleEvent): boolean {
    if (!sub.lifecycleNotificationUrl) return false;
    const note: Record<string, unknown> = {
      subscriptionId: sub.id,
      subscriptionExpirationDateTime: graphInstant(sub.expiresAt),
      tenantId: this.opts.tenantId,
      lifecycleEvent,
    };
    if (sub.clientState !== undefined) note.clientState = sub.clientState;
    this.track(
      this.deliver(
        sub,
        sub.lifecycleNotificationUrl,
        { value: [note] },
        "lifecycle",
        lifecycleEvent,
        0,
      ),
    );
    return true;
  }

  private track(p: Promise<void>): void {
    this.jobs.track(p);
  }

  private async deliver(
    sub: StoredSubscription,
    url: string,
    body: unknown,
    kind: DeliveryRecord["kind"],
    event: string,
    attempt: number,
  ): Promise<void> {
    if (this.jobs.closed) return;
    let status: number | undefined;
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json; charset=utf-8" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.attemptTimeoutMs),
      });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
    } catch {
      status = undefined;
    }
    const ok = status !== undefined && status >= 200 && status < 300;
    const record = (outcome: DeliveryRecord["outcome"]) =>
      this.log.push({
        at: this.opts.clock.now(),
        subscriptionId: sub.id,
        kind,
        event,
        attempt: attempt + 1,
        outcome,
        ...(status !== undefined ? { status } : {}),
      });
    if (ok) return void record("delivered");
    const delay = this.opts.retryDelaysMs[attempt];
    if (delay === undefined) {
      record("given_up");
      if (kind === "change") this.lifecycle(sub, "missed");
      return;
    }
    record("failed");
    await this.jobs.sleep(delay);
    await this.deliver(sub, url, body, kind, event, attempt + 1);
  }
}
