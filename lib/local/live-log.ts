/** The human-readable live log of the local stack: one line per thing the automation did. */
import { redactSecrets } from "#lib/app/compose/logger";

export type LiveEvent =
  | {
      kind: "set";
      at: number;
      user: string;
      text: string;
      emoji: string;
      expiration: number;
      calls: number;
    }
  | { kind: "clear"; at: number; user: string; calls: number }
  /** Our status reached its `status_expiration` and the service cleared it; we sent `calls`. */
  | { kind: "expired"; at: number; user: string; calls: number }
  | { kind: "leave"; at: number; user: string }
  | { kind: "retry"; at: number; user: string; code: string; retryAt: number }
  | { kind: "failed"; at: number; user: string; code: string }
  | { kind: "note"; at: number; text: string };

/** What the live log reads of a call the service recorded (the emulator's call log). */
export interface RecordedCall {
  seq: number;
  method: string;
  /** Whose profile the call was about. */
  user: string | null;
  /** The app the call's token was issued to; null for a person's own token. */
  app: string | null;
}

/**
 * How many `users.profile.set` calls Statuspilot made about `user` after call `afterSeq`. Only
 * calls made with a token issued to our app count: the user changing their own status uses
 * their own token, and that is not a call of ours, though it is about the same profile.
 */
export function ourProfileSets(
  calls: readonly RecordedCall[],
  ours: { app: string; user: string },
  afterSeq: number,
): number {
  return calls.filter(
    (c) =>
      c.seq > afterSeq &&
      c.method === "users.profile.set" &&
      c.app === ours.app &&
      c.user === ours.user,
  ).length;
}

export interface LiveLogFormat {
  /** IANA zone the times are printed in. */
  timeZone: string;
}

const timeFormatters = new Map<string, Intl.DateTimeFormat>();
const formatterFor = (timeZone: string): Intl.DateTimeFormat => {
  let f = timeFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-GB", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    });
    timeFormatters.set(timeZone, f);
  }
  return f;
};

const parts = (epochMs: number, timeZone: string) => {
  const all = formatterFor(timeZone).formatToParts(epochMs);
  const get = (type: string) => all.find((p) => p.type === type)?.value ?? "";
  return {
    date: `${get("year")}-${get("month")}-${get("day")}`,
    time: `${get("hour")}:${get("minute")}:${get("second")}`,
  };
};

/** `12:00:20` in the given zone. */
export const clockTime = (epochMs: number, timeZone: string): string =>
  parts(epochMs, timeZone).time;

/** The "until" of a status: a time today, or a date and time on another day. */
const until = (at: number, expirationS: number, timeZone: string): string => {
  const now = parts(at, timeZone);
  const end = parts(expirationS * 1000, timeZone);
  return end.date === now.date ? end.time : `${end.date} ${end.time}`;
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function formatLiveEvent(event: LiveEvent, format: LiveLogFormat): string {
  const t = clockTime(event.at, format.timeZone);
  switch (event.kind) {
    case "set": {
      const shown = [event.emoji, event.text].filter((s) => s !== "").join(" ");
      const end =
        event.expiration > 0 ? ` until ${until(event.at, event.expiration, format.timeZone)}` : "";
      return `${t} ${event.user} set "${shown}"${end} (${plural(event.calls, "call")})`;
    }
    case "clear":
      return `${t} ${event.user} cleared the status (${plural(event.calls, "call")})`;
    case "expired":
      return `${t} ${event.user} expired (service cleared it, ${plural(event.calls, "call")})`;
    case "leave":
      return `${t} ${event.user} user set their own status — leaving it`;
    case "retry":
      return `${t} ${event.user} service said ${event.code} — retrying at ${clockTime(event.retryAt, format.timeZone)}`;
    case "failed":
      return `${t} ${event.user} could not update the status: ${event.code}`;
    case "note":
      return `${t} ${event.text}`;
  }
}

/** The machine's own zone, the default for printed times (a newcomer compares with their clock). */
export const machineTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

export type LogLineLevel = "debug" | "info" | "warn" | "error";

const LEVEL_WORD: Record<LogLineLevel, string> = {
  debug: "debug",
  info: "info",
  warn: "warning",
  error: "error",
};

/** `key=value`, quoted when it has spaces; objects as JSON. Secret-looking keys are redacted. */
const field = (key: string, value: unknown): string => {
  const safe = redactSecrets(key, value);
  const text =
    typeof safe === "string"
      ? /^[^\s"=]+$/.test(safe)
        ? safe
        : JSON.stringify(safe)
      : JSON.stringify(safe, redactSecrets);
  return `${key}=${text}`;
};

/**
 * One readable line for a log record (the stack's own or the handlers'), instead of Powertools
 * JSON: `12:00:20 warning: acknowledged before recording finished user=U001`.
 */
export function formatLogLine(
  level: LogLineLevel,
  message: string,
  data: Record<string, unknown> | undefined,
  format: LiveLogFormat & { at: number },
): string {
  const fields = Object.entries(data ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => field(k, v));
  return [
    `${clockTime(format.at, format.timeZone)} ${LEVEL_WORD[level]}: ${message}`,
    ...fields,
  ].join(" ");
}
