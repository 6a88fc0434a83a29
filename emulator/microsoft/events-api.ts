/**
 * Graph's calendar reads: `GET /v1.0/me/calendarView` (a window, `$top` / `$skip` paging through
 * `@odata.nextLink`) and `GET /v1.0/me/calendarView/delta` (a round of pages through
 * `@odata.nextLink`, ending with an `@odata.deltaLink` whose next use returns only what changed,
 * removals as `@removed`). Times are rendered in UTC, as `Prefer: outlook.timezone="UTC"` asks.
 */
import { type Answer, graphDateTime, graphError, graphInstant } from "./http";
import type { MicrosoftModel, StoredEvent } from "./model";

/** calendarView's default page size, and the largest `$top` Graph accepts. */
export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 1000;

interface DeltaState {
  /** user */
  u: string;
  /** window, epoch ms */
  s: number;
  e: number;
  /** the change sequence this round reports from (0: a full round) */
  from: number;
  /** the sequence the round's deltaLink will start from */
  to: number;
  /** offset into the round's list, page size */
  o: number;
  n: number;
}

const encodeState = (s: DeltaState) => Buffer.from(JSON.stringify(s)).toString("base64url");
function decodeState(token: string): DeltaState | undefined {
  try {
    const s = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as DeltaState;
    return typeof s.u === "string" && [s.s, s.e, s.from, s.to, s.o, s.n].every(Number.isFinite)
      ? s
      : undefined;
  } catch {
    return undefined;
  }
}

/** A query string as Graph writes its links: `$` names kept literal, values encoded. */
const linkQuery = (params: [string, string][]): string =>
  params
    .map(([k, v]) => `${encodeURIComponent(k).replace(/^%24/, "$")}=${encodeURIComponent(v)}`)
    .join("&");

/** An ISO instant; one without an offset is read as UTC. */
function parseWindowInstant(v: string | null): number | undefined {
  if (!v) return undefined;
  const withZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(v) ? v : `${v}Z`;
  const ms = Date.parse(withZone);
  return Number.isFinite(ms) ? ms : undefined;
}

const overlaps = (e: { start: number; end: number }, from: number, to: number) =>
  e.start < to && (e.end > from || (e.end === e.start && e.start >= from));

/** The page size a `Prefer: odata.maxpagesize=N` header asks for. */
export function maxPageSize(prefer: string | undefined): number | undefined {
  const m = prefer?.match(/odata\.maxpagesize\s*=\s*(\d+)/i);
  return m ? Math.min(Number(m[1]), MAX_PAGE_SIZE) : undefined;
}

/** One event in Graph's shape (the properties a calendar client reads, plus Graph's defaults). */
export function renderEvent(
  e: StoredEvent,
  user: { displayName: string; userPrincipalName: string },
) {
  const self = { name: user.displayName, address: user.userPrincipalName };
  return {
    "@odata.etag": `W/"${e.changeKey}"`,
    id: e.id,
    createdDateTime: graphInstant(e.createdAt),
    lastModifiedDateTime: graphInstant(e.modifiedAt),
    changeKey: e.changeKey,
    categories: [],
    originalStartTimeZone: "UTC",
    originalEndTimeZone: "UTC",
    iCalUId: e.iCalUId,
    reminderMinutesBeforeStart: 15,
    isReminderOn: true,
    hasAttachments: false,
    subject: e.subject,
    bodyPreview: "",
    importance: "normal",
    sensitivity: e.sensitivity,
    isAllDay: e.isAllDay,
    isCancelled: e.isCancelled,
    isOrganizer: e.response === "organizer",
    responseRequested: true,
    seriesMasterId: null,
    showAs: e.showAs,
    type: "singleInstance",
    isOnlineMeeting: e.isOnlineMeeting === true,
    onlineMeetingProvider: e.isOnlineMeeting === true ? "teamsForBusiness" : "unknown",
    onlineMeeting:
      e.isOnlineMeeting === true
        ? { joinUrl: `https://teams.microsoft.com/l/meetup-join/${encodeURIComponent(e.id)}` }
        : null,
    responseStatus: { response: e.response, time: "0001-01-01T00:00:00Z" },
    body: { contentType: "html", content: "" },
    start: { dateTime: graphDateTime(e.start), timeZone: "UTC" },
    end: { dateTime: graphDateTime(e.end), timeZone: "UTC" },
    location: { displayName: e.location, locationType: "default" },
    locations: e.location ? [{ displayName: e.location, locationType: "default" }] : [],
    attendees: e.attendees.map((address) => ({
      type: "required",
      status: { response: "none", time: "0001-01-01T00:00:00Z" },
      emailAddress: { name: address, address },
    })),
    organizer: {
      emailAddress:
        e.response === "organizer" ? self : { name: "Organizer", address: "organizer@example.com" },
    },
  };
}

const MISSING_WINDOW =
  "This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.";

export class EventsApi {
  constructor(
    private readonly model: MicrosoftModel,
    private readonly baseUrl: () => string,
  ) {}

  private render(userId: string, e: StoredEvent) {
    const user = this.model.users.get(userId);
    return renderEvent(e, user ?? { displayName: userId, userPrincipalName: userId });
  }

  calendarView(userId: string, query: URLSearchParams, now: number): Answer {
    const from = parseWindowInstant(query.get("startDateTime"));
    const to = parseWindowInstant(query.get("endDateTime"));
    if (from === undefined || to === undefined) {
      return graphError(400, "ErrorInvalidParameter", MISSING_WINDOW, now);
    }
    const top = Number(query.get("$top") ?? DEFAULT_PAGE_SIZE);
    const skip = Number(query.get("$skip") ?? 0);
    if (
      !Number.isInteger(top) ||
      top < 1 ||
      top > MAX_PAGE_SIZE ||
      !Number.isInteger(skip) ||
      skip < 0
    ) {
      return graphError(400, "ErrorInvalidParameter", "Invalid $top or $skip.", now);
    }
    const all = this.model
      .userEvents(userId)
      .filter((e) => overlaps(e, from, to))
      .sort((a, b) => a.start - b.start || a.id.localeCompare(b.id));
    const page = all.slice(skip, skip + top);
    const body: Record<string, unknown> = {
      "@odata.context": `${this.baseUrl()}/v1.0/$metadata#users('${userId}')/calendarView`,
      value: page.map((e) => this.render(userId, e)),
    };
    if (skip + top < all.length) {
      const params = [...query].filter(([k]) => k !== "$skip");
      params.push(["$skip", String(skip + top)]);
      body["@odata.nextLink"] = `${this.baseUrl()}/v1.0/me/calendarView?${linkQuery(params)}`;
    }
    return { status: 200, body };
  }

  /**
   * A delta page. `expired` (a fault) answers 410, as when the sync state is gone; the client
   * then starts a full round again.
   */
  delta(
    userId: string,
    query: URLSearchParams,
    prefer: string | undefined,
    now: number,
    expired: boolean,
  ): Answer {
    const token = query.get("$deltatoken") ?? query.get("$skiptoken");
    let state: DeltaState;
    if (token !== null) {
      const decoded = decodeState(token);
      if (!decoded || decoded.u !== userId) {
        return graphError(400, "ErrorInvalidSyncStateData", "The sync state data is invalid.", now);
      }
      if (expired && query.has("$deltatoken")) {
        return graphError(
          410,
          "SyncStateNotFound",
          "The sync state is not found or has expired. Start a new round of delta queries.",
          now,
        );
      }
      state = query.has("$deltatoken")
        ? {
            ...decoded,
            from: decoded.to,
            to: this.model.currentSeq(),
            o: 0,
            n: maxPageSize(prefer) ?? decoded.n,
          }
        : decoded;
    } else {
      const from = parseWindowInstant(query.get("startDateTime"));
      const to = parseWindowInstant(query.get("endDateTime"));
      if (from === undefined || to === undefined) {
        return graphError(400, "ErrorInvalidParameter", MISSING_WINDOW, now);
      }
      state = {
        u: userId,
        s: from,
        e: to,
        from: 0,
        to: this.model.currentSeq(),
        o: 0,
        n: maxPageSize(prefer) ?? DEFAULT_PAGE_SIZE,
      };
    }
    const items = state.from === 0 ? this.fullRound(state) : this.changesRound(state);
    const page = items.slice(state.o, state.o + state.n);
    const link = `${this.baseUrl()}/v1.0/me/calendarView/delta`;
    const body: Record<string, unknown> = {
      "@odata.context": `${this.baseUrl()}/v1.0/$metadata#Collection(event)`,
      value: page,
    };
    if (state.o + state.n < items.length) {
      body["@odata.nextLink"] =
        `${link}?$skiptoken=${encodeState({ ...state, o: state.o + state.n })}`;
    } else {
      body["@odata.deltaLink"] = `${link}?$deltatoken=${encodeState({ ...state, o: 0 })}`;
    }
    return { status: 200, body };
  }

  private fullRound(state: DeltaState): unknown[] {
    return this.model
      .userEvents(state.u)
      .filter((e) => overlaps(e, state.s, state.e))
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((e) => this.render(state.u, e));
  }

  /** What changed in (from, to]: each event once, current or `@removed`. */
  private changesRound(state: DeltaState): unknown[] {
    const touched = new Map<string, boolean>();
    for (const c of this.model.changesSince(state.u, state.from)) {
      if (c.seq > state.to) break;
      const wasIn =
        (c.before !== undefined && overlaps(c.before, state.s, state.e)) ||
        (c.after !== undefined && overlaps(c.after, state.s, state.e));
      touched.set(c.eventId, (touched.get(c.eventId) ?? false) || wasIn);
    }
    const current = new Map(this.model.userEvents(state.u).map((e) => [e.id, e]));
    const out: unknown[] = [];
    for (const [id, everInWindow] of [...touched].sort(([a], [b]) => a.localeCompare(b))) {
      if (!everInWindow) continue;
      const e = current.get(id);
      out.push(
        e && overlaps(e, state.s, state.e)
          ? this.render(state.u, e)
          : { "@odata.type": "#microsoft.graph.event", id, "@removed": { reason: "deleted" } },
      );
    }
    return out;
  }
}
