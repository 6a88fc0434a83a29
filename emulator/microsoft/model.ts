/**
 * The Microsoft emulator's state: users and their calendar events, the change log that delta
 * tokens point into, and subscriptions. Pure data and bookkeeping; HTTP lives in the other files.
 *
 * Events are stored as single instances (Graph's `type: "singleInstance"`): a control edit makes
 * one occurrence. Series expansion is not emulated (see the README).
 */
import { randomUUID } from "node:crypto";

/** `showAs` values of Graph's freeBusyStatus. */
export const SHOW_AS = ["free", "tentative", "busy", "oof", "workingElsewhere", "unknown"] as const;
export type ShowAs = (typeof SHOW_AS)[number];
export const SENSITIVITIES = ["normal", "personal", "private", "confidential"] as const;
export type Sensitivity = (typeof SENSITIVITIES)[number];
export const RESPONSES = [
  "none",
  "organizer",
  "tentativelyAccepted",
  "accepted",
  "declined",
  "notResponded",
] as const;
export type ResponseType = (typeof RESPONSES)[number];

export interface MsUser {
  id: string;
  userPrincipalName: string;
  displayName: string;
}

/** One event as stored: instants in epoch ms; rendered in Graph's shape by graph-api.ts. */
export interface StoredEvent {
  id: string;
  iCalUId: string;
  changeKey: string;
  createdAt: number;
  modifiedAt: number;
  subject: string;
  start: number;
  end: number;
  isAllDay: boolean;
  isCancelled: boolean;
  showAs: ShowAs;
  sensitivity: Sensitivity;
  response: ResponseType;
  location: string;
  attendees: string[];
  /** A Teams meeting is attached: Graph then gives its `onlineMeeting.joinUrl`. */
  isOnlineMeeting?: boolean;
}

/** What a control edit may give (instants as ISO strings or epoch ms). */
export interface EventInput {
  subject?: string;
  start?: string | number;
  end?: string | number;
  isAllDay?: boolean;
  isCancelled?: boolean;
  showAs?: ShowAs;
  sensitivity?: Sensitivity;
  response?: ResponseType;
  location?: string;
  attendees?: string[];
  isOnlineMeeting?: boolean;
}

export type ChangeType = "created" | "updated" | "deleted";

/** One entry of a user's change log: delta tokens remember the sequence number they saw. */
export interface ChangeEntry {
  seq: number;
  eventId: string;
  changeType: ChangeType;
  /** The event after the change; undefined once deleted. */
  after?: StoredEvent;
  /** Its window before the change, so a delta can report an event that moved out. */
  before?: { start: number; end: number };
}

export interface StoredSubscription {
  id: string;
  userId: string;
  clientId: string;
  resource: string;
  changeTypes: ChangeType[];
  notificationUrl: string;
  lifecycleNotificationUrl?: string;
  clientState?: string;
  expiresAt: number;
  createdAt: number;
  /** A `reauthorizationRequired` was sent: notifications are held until PATCH or reauthorize. */
  needsReauthorization: boolean;
  /** Notifications dropped while it needed reauthorization (a `missed` follows the renewal). */
  heldChanges: number;
  /** A "silent stop" fault: listed and renewable, but it never notifies again. */
  silenced: boolean;
}

export class EventInputError extends Error {
  override name = "EventInputError";
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super(`${pointer}: ${message}`);
  }
}

const toInstant = (v: string | number | undefined, pointer: string): number | undefined => {
  if (v === undefined) return undefined;
  const ms = typeof v === "number" ? v : Date.parse(v);
  if (!Number.isFinite(ms))
    throw new EventInputError(pointer, "must be an ISO instant or epoch ms");
  return ms;
};

function oneOf<T extends string>(
  allowed: readonly T[],
  v: unknown,
  pointer: string,
): T | undefined {
  if (v === undefined) return undefined;
  if (typeof v === "string" && (allowed as readonly string[]).includes(v)) return v as T;
  throw new EventInputError(pointer, `must be one of ${allowed.join(", ")}`);
}

export class MicrosoftModel {
  readonly users = new Map<string, MsUser>();
  readonly events = new Map<string, Map<string, StoredEvent>>();
  readonly changes = new Map<string, ChangeEntry[]>();
  readonly subscriptions = new Map<string, StoredSubscription>();
  private seq = 0;
  private changeKeys = 0;

  constructor(users: readonly MsUser[]) {
    for (const u of users) {
      this.users.set(u.id, u);
      this.events.set(u.id, new Map());
      this.changes.set(u.id, []);
    }
  }

  /** The last change sequence number handed out (a delta token's starting point). */
  currentSeq(): number {
    return this.seq;
  }

  userEvents(userId: string): StoredEvent[] {
    return [...(this.events.get(userId)?.values() ?? [])];
  }

  changesSince(userId: string, seq: number): ChangeEntry[] {
    return (this.changes.get(userId) ?? []).filter((c) => c.seq > seq);
  }

  private requireUser(userId: string): Map<string, StoredEvent> {
    const events = this.events.get(userId);
    if (!events) throw new EventInputError("/user", `no user ${userId}`);
    return events;
  }

  private record(userId: string, entry: Omit<ChangeEntry, "seq">): ChangeEntry {
    const full = { ...entry, seq: ++this.seq };
    this.changes.get(userId)?.push(full);
    return full;
  }

  private nextChangeKey(): string {
    return Buffer.from(`ck-${++this.changeKeys}`).toString("base64");
  }

  createEvent(userId: string, input: EventInput, now: number): ChangeEntry {
    const events = this.requireUser(userId);
    const start = toInstant(input.start, "/start");
    const end = toInstant(input.end, "/end");
    if (start === undefined || end === undefined) {
      throw new EventInputError("/start", "start and end are required");
    }
    const id = `AAMkAG${randomUUID().replaceAll("-", "")}`;
    const event: StoredEvent = {
      id,
      iCalUId: `040000008200E00074C5B7101A82E008${randomUUID().replaceAll("-", "")}`,
      changeKey: this.nextChangeKey(),
      createdAt: now,
      modifiedAt: now,
      subject: input.subject ?? "",
      start,
      end,
      isAllDay: input.isAllDay ?? false,
      isCancelled: input.isCancelled ?? false,
      showAs: oneOf(SHOW_AS, input.showAs, "/showAs") ?? "busy",
      sensitivity: oneOf(SENSITIVITIES, input.sensitivity, "/sensitivity") ?? "normal",
      response: oneOf(RESPONSES, input.response, "/response") ?? "organizer",
      location: input.location ?? "",
      attendees: input.attendees ?? [],
      ...(input.isOnlineMeeting === true ? { isOnlineMeeting: true } : {}),
    };
    if (event.end < event.start) throw new EventInputError("/end", "must not be before start");
    events.set(id, event);
    return this.record(userId, { eventId: id, changeType: "created", after: { ...event } });
  }

  updateEvent(userId: string, eventId: string, input: EventInput, now: number): ChangeEntry {
    const event = this.requireUser(userId).get(eventId);
    if (!event) throw new EventInputError("/id", `no event ${eventId}`);
    const before = { start: event.start, end: event.end };
    event.subject = input.subject ?? event.subject;
    event.start = toInstant(input.start, "/start") ?? event.start;
    event.end = toInstant(input.end, "/end") ?? event.end;
    event.isAllDay = input.isAllDay ?? event.isAllDay;
    event.isCancelled = input.isCancelled ?? event.isCancelled;
    event.showAs = oneOf(SHOW_AS, input.showAs, "/showAs") ?? event.showAs;
    event.sensitivity =
      oneOf(SENSITIVITIES, input.sensitivity, "/sensitivity") ?? event.sensitivity;
    event.response = oneOf(RESPONSES, input.response, "/response") ?? event.response;
    event.location = input.location ?? event.location;
    event.attendees = input.attendees ?? event.attendees;
    event.isOnlineMeeting = input.isOnlineMeeting ?? event.isOnlineMeeting;
    event.changeKey = this.nextChangeKey();
    event.modifiedAt = now;
    return this.record(userId, {
      eventId,
      changeType: "updated",
      after: { ...event },
      before,
    });
  }

  deleteEvent(userId: string, eventId: string): ChangeEntry {
    const events = this.requireUser(userId);
    const event = events.get(eventId);
    if (!event) throw new EventInputError("/id", `no event ${eventId}`);
    events.delete(eventId);
    return this.record(userId, {
      eventId,
      changeType: "deleted",
      before: { start: event.start, end: event.end },
    });
  }

  /** Removes every subscription whose expiration has passed; returns them. */
  expireSubscriptions(now: number): StoredSubscription[] {
    const expired = [...this.subscriptions.values()].filter((s) => s.expiresAt <= now);
    for (const s of expired) this.subscriptions.delete(s.id);
    return expired;
  }
}
