/**
 * Graph's subscriptions on a user's events: `POST /v1.0/subscriptions` (validated, then the
 * endpoints' validation handshake, then 201), `GET`, `PATCH` (a new expirationDateTime),
 * `DELETE`, and `POST /v1.0/subscriptions/{id}/reauthorize`. Outlook events allow at most 10,080
 * minutes of lifetime; a shorter granted lifetime may be set (`grantedLifetimeMs`).
 */
import { randomUUID } from "node:crypto";
import { type Answer, graphError, graphInstant } from "./http";
import type { ChangeType, MicrosoftModel, StoredSubscription } from "./model";
import type { Notifier } from "./notifier";

/** The documented maximum lifetime of a subscription on Outlook events. */
export const MAX_SUBSCRIPTION_MINUTES = 10_080;
const MAX_CLIENT_STATE = 128;
const CHANGE_TYPES: readonly ChangeType[] = ["created", "updated", "deleted"];

export interface Caller {
  userId: string;
  clientId: string;
}

export interface SubscriptionsApiDeps {
  model: MicrosoftModel;
  notifier: Notifier;
  baseUrl(): string;
  /** Runs the validation handshake against one endpoint. */
  validate(url: string): Promise<boolean>;
  /**
   * The longest lifetime granted (ms), when shorter than the documented maximum: a POST or PATCH
   * asking for a later expiration is granted this, and its answer's expirationDateTime says so.
   */
  grantedLifetimeMs(): number | undefined;
}

/** https, or plain http on loopback (the local stack has no TLS). */
function endpointProblem(url: unknown, name: string): string | undefined {
  if (typeof url !== "string") return `${name} is required.`;
  try {
    const u = new URL(url);
    if (u.protocol === "https:") return undefined;
    if (u.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(u.hostname))
      return undefined;
    return `Subscription ${name} must be an https URL.`;
  } catch {
    return `Subscription ${name} is not a valid URL.`;
  }
}

export class SubscriptionsApi {
  constructor(private readonly deps: SubscriptionsApiDeps) {}

  render(s: StoredSubscription, withContext = true) {
    return {
      ...(withContext
        ? { "@odata.context": `${this.deps.baseUrl()}/v1.0/$metadata#subscriptions/$entity` }
        : {}),
      id: s.id,
      resource: s.resource,
      applicationId: s.clientId,
      changeType: s.changeTypes.join(","),
      clientState: s.clientState ?? null,
      notificationUrl: s.notificationUrl,
      notificationQueryOptions: null,
      lifecycleNotificationUrl: s.lifecycleNotificationUrl ?? null,
      expirationDateTime: graphInstant(s.expiresAt),
      creatorId: s.userId,
      includeResourceData: false,
      latestSupportedTlsVersion: "v1_2",
      encryptionCertificate: null,
      encryptionCertificateId: null,
      notificationUrlAppId: null,
    };
  }

  private expiryProblem(raw: unknown, now: number): { at: number } | { problem: string } {
    const at = typeof raw === "string" ? Date.parse(raw) : Number.NaN;
    if (!Number.isFinite(at))
      return { problem: "expirationDateTime is required and must be an ISO instant." };
    if (at <= now) return { problem: "Subscription expiration must be in the future." };
    if (at > now + MAX_SUBSCRIPTION_MINUTES * 60_000) {
      return {
        problem: `Subscription expiration can only be ${MAX_SUBSCRIPTION_MINUTES} minutes in the future.`,
      };
    }
    // Graph may grant less than asked: the answer's expirationDateTime is the one that holds.
    const granted = this.deps.grantedLifetimeMs();
    return { at: granted === undefined ? at : Math.min(at, now + granted) };
  }

  async create(caller: Caller, doc: Record<string, unknown>, now: number): Promise<Answer> {
    const bad = (message: string) => graphError(400, "InvalidRequest", message, now);
    const types =
      typeof doc.changeType === "string" ? doc.changeType.split(",").map((t) => t.trim()) : [];
    if (types.length === 0 || types.some((t) => !(CHANGE_TYPES as readonly string[]).includes(t))) {
      return bad("changeType must be a comma-separated list of created, updated, deleted.");
    }
    const user = this.deps.model.users.get(caller.userId);
    const resource = typeof doc.resource === "string" ? doc.resource.replace(/^\//, "") : "";
    const mine = [
      "me/events",
      `users/${caller.userId}/events`,
      `users/${user?.userPrincipalName}/events`,
    ];
    if (!mine.some((r) => r.toLowerCase() === resource.toLowerCase())) {
      return bad(`Resource '${resource}' is not supported: this emulator serves me/events.`);
    }
    const urlProblem =
      endpointProblem(doc.notificationUrl, "notificationUrl") ??
      (doc.lifecycleNotificationUrl === undefined
        ? undefined
        : endpointProblem(doc.lifecycleNotificationUrl, "lifecycleNotificationUrl"));
    if (urlProblem) return bad(urlProblem);
    if (
      doc.clientState !== undefined &&
      (typeof doc.clientState !== "string" || doc.clientState.length > MAX_CLIENT_STATE)
    ) {
      return bad(`clientState must be a string of at most ${MAX_CLIENT_STATE} characters.`);
    }
    const expiry = this.expiryProblem(doc.expirationDateTime, now);
    if ("problem" in expiry) return bad(expiry.problem);
    const notificationUrl = doc.notificationUrl as string;
    const lifecycleUrl = doc.lifecycleNotificationUrl as string | undefined;
    if (!(await this.deps.validate(notificationUrl))) {
      return graphError(
        400,
        "ValidationError",
        "Subscription validation request failed. Notification endpoint must respond with 200 OK to validation request.",
        now,
      );
    }
    if (
      lifecycleUrl !== undefined &&
      lifecycleUrl !== notificationUrl &&
      !(await this.deps.validate(lifecycleUrl))
    ) {
      return graphError(
        400,
        "ValidationError",
        "Subscription validation request failed. Lifecycle notification endpoint must respond with 200 OK to validation request.",
        now,
      );
    }
    const sub: StoredSubscription = {
      id: randomUUID(),
      userId: caller.userId,
      clientId: caller.clientId,
      resource: doc.resource as string,
      changeTypes: types as ChangeType[],
      notificationUrl,
      ...(lifecycleUrl !== undefined ? { lifecycleNotificationUrl: lifecycleUrl } : {}),
      ...(typeof doc.clientState === "string" ? { clientState: doc.clientState } : {}),
      expiresAt: expiry.at,
      createdAt: now,
      needsReauthorization: false,
      heldChanges: 0,
      silenced: false,
    };
    this.deps.model.subscriptions.set(sub.id, sub);
    return { status: 201, body: this.render(sub) };
  }

  /** The caller's live subscription `id`, or undefined (another app's or user's is not found). */
  private own(caller: Caller, id: string): StoredSubscription | undefined {
    const s = this.deps.model.subscriptions.get(id);
    return s && s.userId === caller.userId && s.clientId === caller.clientId ? s : undefined;
  }

  private notFound(now: number): Answer {
    return graphError(404, "ResourceNotFound", "The object was not found.", now);
  }

  get(caller: Caller, id: string | undefined, now: number): Answer {
    if (id === undefined) {
      const value = [...this.deps.model.subscriptions.values()]
        .filter((s) => s.userId === caller.userId && s.clientId === caller.clientId)
        .map((s) => this.render(s, false));
      return {
        status: 200,
        body: { "@odata.context": `${this.deps.baseUrl()}/v1.0/$metadata#subscriptions`, value },
      };
    }
    const s = this.own(caller, id);
    return s ? { status: 200, body: this.render(s) } : this.notFound(now);
  }

  /** A renewal: a new expirationDateTime; it also reauthorizes a subscription that needed it. */
  patch(caller: Caller, id: string, doc: Record<string, unknown>, now: number): Answer {
    const s = this.own(caller, id);
    if (!s) return this.notFound(now);
    const expiry = this.expiryProblem(doc.expirationDateTime, now);
    if ("problem" in expiry) return graphError(400, "InvalidRequest", expiry.problem, now);
    s.expiresAt = expiry.at;
    this.reauthorized(s);
    return { status: 200, body: this.render(s) };
  }

  reauthorize(caller: Caller, id: string, now: number): Answer {
    const s = this.own(caller, id);
    if (!s) return this.notFound(now);
    this.reauthorized(s);
    return { status: 204 };
  }

  delete(caller: Caller, id: string, now: number): Answer {
    const s = this.own(caller, id);
    if (!s) return this.notFound(now);
    this.deps.model.subscriptions.delete(id);
    return { status: 204 };
  }

  /** Notifications held while reauthorization was due are reported as one `missed`. */
  private reauthorized(s: StoredSubscription): void {
    if (!s.needsReauthorization) return;
    s.needsReauthorization = false;
    if (s.heldChanges > 0) {
      s.heldChanges = 0;
      this.deps.notifier.lifecycle(s, "missed");
    }
  }
}
