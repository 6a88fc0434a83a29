import { CodedError } from "#lib/core/coded-error";
/** Errors of the calendar adapter. One hierarchy; each carries a typed `code`. */
export type CalendarErrorCode =
  | "unparseable_feed"
  | "unknown_time_zone"
  | "invalid_window"
  | "invalid_event"
  | "cut_short";

export class CalendarError extends CodedError<CalendarErrorCode> {
  override name = "CalendarError";
}

/** The whole feed is unreadable: no VCALENDAR, or not iCalendar text at all. */
export class CalendarParseError extends CalendarError {
  override name = "CalendarParseError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, "unparseable_feed", options);
  }
}

/** A time zone id that neither the feed, nor tzdata, nor the CLDR Windows mapping knows. */
export class UnknownTimeZoneError extends CalendarError {
  override name = "UnknownTimeZoneError";
  constructor(
    readonly tzid: string,
    options?: { cause?: unknown },
  ) {
    super(`unknown time zone "${tzid}"`, "unknown_time_zone", options);
  }
}

/** `from`/`to` are not finite or `to` precedes `from`. */
export class InvalidWindowError extends CalendarError {
  override name = "InvalidWindowError";
  constructor(message: string) {
    super(message, "invalid_window");
  }
}

/**
 * One event cannot be expanded (an RRULE without a defined recurrence set, say). expand never
 * lets it escape: it becomes the event's skip reason.
 */
export class InvalidEventError extends CalendarError {
  override name = "InvalidEventError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, "invalid_event", options);
  }
}

/**
 * The expansion reached the deadline it was given (its invocation's) before it read the feed:
 * the feed is not to blame, and its read is tried again.
 */
export class ExpansionCutShortError extends CalendarError {
  override name = "ExpansionCutShortError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, "cut_short", options);
  }
}
