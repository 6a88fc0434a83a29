import { randomBytes } from "node:crypto";
import {
  type CalendarState,
  currentVersion,
  type EventVersion,
  type StoredEvent,
  versionAt,
} from "./calendar-model";
import { badRequest, fullSyncRequired, GoogleApiError } from "./errors";
import {
  type EventResource,
  eventItem,
  exceptionItems,
  instanceItems,
  isRecurring,
  type ListedItem,
  type Window,
} from "./resources";
import { isoUtc, parseRfc3339 } from "./time";

/**
 * events.list: a full listing over a window, or an incremental one from a sync token; pages of
 * at most `maxResults` items, `nextPageToken` on every page but the last, `nextSyncToken` only
 * on the last.
 */

const DEFAULT_PAGE = 250;
const MAX_PAGE = 2500;
/** Open-ended series are expanded this far past the later of now and timeMin. */
const HORIZON_MS = 2 * 366 * 86_400_000;
/** At most this many instances of one series per listing. */
const SERIES_LIMIT = 1000;
const PAGE_SNAPSHOTS = 1000;

/** What a sync token says: the calendar, its sequence and epoch, and the full sync's window. */
interface SyncState {
  c: string;
  s: number;
  e: number;
  min?: number;
  max?: number;
}

const encodeSync = (s: SyncState) => `C${Buffer.from(JSON.stringify(s)).toString("base64url")}`;

function decodeSync(token: string): SyncState | undefined {
  if (!token.startsWith("C")) return undefined;
  try {
    const s = JSON.parse(Buffer.from(token.slice(1), "base64url").toString("utf8")) as SyncState;
    return typeof s.c === "string" && typeof s.s === "number" && typeof s.e === "number"
      ? s
      : undefined;
  } catch {
    return undefined;
  }
}

interface Snapshot {
  calendar: string;
  items: EventResource[];
  offset: number;
  nextSyncToken: string;
}

/** Parameters that cannot go with a sync token (the events.list reference lists them). */
const NOT_WITH_SYNC = ["iCalUID", "orderBy", "q", "timeMin", "timeMax", "updatedMin"];
const NOT_WITH_SYNC_EXTENDED = ["privateExtendedProperty", "sharedExtendedProperty"];

export class EventLister {
  private readonly pages = new Map<string, Snapshot>();

  list(cal: CalendarState, q: URLSearchParams, now: number): Record<string, unknown> {
    const maxResults = readMaxResults(q);
    const pageToken = q.get("pageToken");
    if (pageToken !== null) return this.nextPage(cal, pageToken, maxResults);
    const singleEvents = readBool(q, "singleEvents") ?? false;
    const syncToken = q.get("syncToken");
    let items: ListedItem[];
    let sync: SyncState;
    if (syncToken !== null) {
      for (const p of [...NOT_WITH_SYNC, ...NOT_WITH_SYNC_EXTENDED]) {
        if (q.has(p)) {
          throw badRequest("invalid", `The parameter ${p} cannot be used with syncToken.`, p);
        }
      }
      if (readBool(q, "showDeleted") === false) {
        throw badRequest("invalid", "showDeleted cannot be false with syncToken.", "showDeleted");
      }
      const from = decodeSync(syncToken);
      if (!from || from.c !== cal.id) {
        throw badRequest("invalid", "Invalid sync token value.", "syncToken");
      }
      if (from.e !== cal.syncEpoch || from.s > cal.seq) throw fullSyncRequired();
      items = changesSince(cal, from, singleEvents, now);
      sync = { ...from, s: cal.seq };
    } else {
      const min = readTime(q, "timeMin");
      const max = readTime(q, "timeMax");
      if (min !== undefined && max !== undefined && max <= min) {
        throw new GoogleApiError(400, {
          domain: "calendar",
          reason: "timeRangeEmpty",
          message: "The specified time range is empty.",
          locationType: "parameter",
          location: "timeMax",
        });
      }
      const orderBy = q.get("orderBy");
      if (orderBy !== null && orderBy !== "startTime" && orderBy !== "updated") {
        throw badRequest("invalid", `Invalid value for orderBy: ${orderBy}`, "orderBy");
      }
      if (orderBy === "startTime" && !singleEvents) {
        throw badRequest(
          "badRequest",
          "The requested ordering is not available for the particular query.",
        );
      }
      const showDeleted = readBool(q, "showDeleted") ?? false;
      items = fullListing(cal, { min, max }, singleEvents, showDeleted, now);
      if (orderBy === "startTime") items.sort((a, b) => a.start - b.start || cmp(a, b));
      if (orderBy === "updated") items.sort((a, b) => a.updated - b.updated || cmp(a, b));
      sync = { c: cal.id, s: cal.seq, e: cal.syncEpoch, min, max };
    }
    const snapshot: Snapshot = {
      calendar: cal.id,
      items: items.map((i) => i.resource),
      offset: 0,
      nextSyncToken: encodeSync(sync),
    };
    return this.page(cal, snapshot, maxResults);
  }

  private nextPage(cal: CalendarState, token: string, maxResults: number) {
    const snapshot = this.pages.get(token);
    if (!snapshot || snapshot.calendar !== cal.id) {
      throw badRequest("invalid", "Invalid page token value.", "pageToken");
    }
    return this.page(cal, snapshot, maxResults);
  }

  private page(cal: CalendarState, snapshot: Snapshot, maxResults: number) {
    const items = snapshot.items.slice(snapshot.offset, snapshot.offset + maxResults);
    const rest = snapshot.offset + items.length < snapshot.items.length;
    const head = {
      kind: "calendar#events",
      etag: `"${cal.seq}"`,
      summary: cal.id,
      description: "",
      updated: isoUtc(latestUpdate(cal)),
      timeZone: cal.owner.timeZone,
      accessRole: "owner",
      defaultReminders: [],
    };
    if (!rest) return { ...head, nextSyncToken: snapshot.nextSyncToken, items };
    const token = randomBytes(18).toString("base64url");
    this.pages.set(token, { ...snapshot, offset: snapshot.offset + items.length });
    if (this.pages.size > PAGE_SNAPSHOTS) {
      const oldest = this.pages.keys().next().value;
      if (oldest !== undefined) this.pages.delete(oldest);
    }
    return { ...head, nextPageToken: token, items };
  }
}

const cmp = (a: ListedItem, b: ListedItem) =>
  a.resource.id < b.resource.id ? -1 : a.resource.id > b.resource.id ? 1 : 0;

function latestUpdate(cal: CalendarState): number {
  let latest = 0;
  for (const ev of cal.events.values()) latest = Math.max(latest, currentVersion(ev).updated);
  return latest;
}

function windowOf(bounds: { min?: number; max?: number }, now: number): Window {
  const from = bounds.min ?? Number.NEGATIVE_INFINITY;
  const to = bounds.max ?? Math.max(now, bounds.min ?? now) + HORIZON_MS;
  return { from, to, limit: SERIES_LIMIT };
}

const overlaps = (item: ListedItem, w: Window) => item.end > w.from && item.start < w.to;

function itemsOf(
  cal: CalendarState,
  ev: StoredEvent,
  v: EventVersion,
  singleEvents: boolean,
  w: Window,
): ListedItem[] {
  if (!isRecurring(v)) return [eventItem(cal, ev, v)];
  if (singleEvents) return instanceItems(cal, ev, v, w);
  // The series itself, when any of its instances falls in the window, and its exceptions.
  const inWindow = instanceItems(cal, { ...ev }, { ...v, overrides: new Map() }, w).length > 0;
  return [...(inWindow ? [eventItem(cal, ev, v)] : []), ...exceptionItems(cal, ev, v, w)];
}

function fullListing(
  cal: CalendarState,
  bounds: { min?: number; max?: number },
  singleEvents: boolean,
  showDeleted: boolean,
  now: number,
): ListedItem[] {
  const w = windowOf(bounds, now);
  const out: ListedItem[] = [];
  for (const ev of cal.events.values()) {
    const v = currentVersion(ev);
    for (const item of itemsOf(cal, ev, v, singleEvents, w)) {
      if (!overlaps(item, w)) continue;
      // "Cancelled instances of recurring events (but not the underlying recurring event) will
      // still be included if showDeleted and singleEvents are both False."
      const cancelledException = !singleEvents && item.resource.recurringEventId !== undefined;
      if (item.cancelled && !showDeleted && !cancelledException) continue;
      out.push(item);
    }
  }
  return out;
}

/**
 * Every event changed since the token: its current form, and for a recurring one, each
 * instance of the version the token saw that no longer exists, as cancelled.
 */
function changesSince(
  cal: CalendarState,
  from: SyncState,
  singleEvents: boolean,
  now: number,
): ListedItem[] {
  const w = windowOf({ min: from.min, max: from.max }, now);
  const out: ListedItem[] = [];
  for (const ev of cal.events.values()) {
    const v = currentVersion(ev);
    if (v.seq <= from.s) continue;
    const current = itemsOf(cal, ev, v, singleEvents, w);
    out.push(...current);
    const before = versionAt(ev, from.s);
    if (!before || before.deleted) continue;
    const ids = new Set(current.map((i) => i.resource.id));
    for (const old of itemsOf(cal, ev, before, singleEvents, w)) {
      if (ids.has(old.resource.id)) continue;
      const { kind, etag, id, recurringEventId, originalStartTime } = old.resource;
      out.push({
        ...old,
        resource: { kind, etag, id, status: "cancelled", recurringEventId, originalStartTime },
        cancelled: true,
      });
    }
  }
  return out;
}

function readBool(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (v === "true") return true;
  if (v === "false") return false;
  throw badRequest("invalid", `Invalid boolean value: '${v}'.`, name);
}

function readTime(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  const ms = parseRfc3339(v);
  if (ms === undefined) throw badRequest("badRequest", "Bad Request", name);
  return ms;
}

function readMaxResults(q: URLSearchParams): number {
  const v = q.get("maxResults");
  if (v === null) return DEFAULT_PAGE;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) {
    throw badRequest(
      "invalid",
      `Invalid value '${v}'. Values must be within the range: [1, 2500]`,
      "maxResults",
    );
  }
  return Math.min(n, MAX_PAGE);
}
