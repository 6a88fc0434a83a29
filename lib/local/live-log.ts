/** The human-readable live log of the local stack: one line per thing the automation did. */
import { redactSecrets } from "#lib/app/compose/logger";
import type { ReconcileOutcome } from "#lib/app/contracts";
import { wallClock } from "#lib/core/until-text";

/** A reconcile's outcome that changed nothing on the profile (and was no retry). */
export type UnchangedOutcome = Exclude<
  ReconcileOutcome,
  { kind: "set" | "clear" | "nothing" | "rescheduled" }
>;

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
  /** The reconcile left the profile as it was, for the reason its outcome gives. */
  | { kind: "unchanged"; at: number; user: string; outcome: UnchangedOutcome }
  | { kind: "retry"; at: number; user: string; code: string; retryAt: number }
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

const twoDigits = (n: number): string => String(n).padStart(2, "0");

const parts = (epochMs: number, timeZone: string) => {
  const wall = wallClock(epochMs, timeZone);
  return {
    date: wall.date,
    time: `${twoDigits(wall.hour)}:${twoDigits(wall.minute)}:${twoDigits(wall.second)}`,
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

/**
 * The words for each outcome that leaves the profile as it is, by the outcome's `kind` and its
 * `reason` (or `code`), as lib/app/contracts.ts's ReconcileOutcome gives them: `kind:reason`,
 * or `kind` alone for any reason not listed. A reason that ends in a code in parentheses ("the
 * service refused this status (invalid_emoji)") is listed without it; the code follows the words.
 */
export const UNCHANGED_WORDS: Readonly<Record<string, string>> = {
  "leave:manual override": "user set their own status — leaving it",
  "leave:manual status": "manual status: left alone",
  "leave:paused": "paused: leaving the status alone",
  "leave:unknown user": "unknown user: nothing to update",
  "leave:the service refused this status": "the service refused this status: not sending it again",
  "leave:the profile could not be read": "could not read the profile: leaving it",
  leave: "left alone",
  "needs_reauth:token_revoked": "token revoked: reconnect",
  "needs_reauth:app_uninstalled": "app uninstalled: the data will be deleted",
  needs_reauth: "token refused: reconnect",
  conflict_retried_out: "could not update the status: too many conflicting writes",
};

/** What the live log says of an outcome that left the profile as it was. */
export function unchangedWords(outcome: UnchangedOutcome): string {
  const said = "reason" in outcome ? outcome.reason : "code" in outcome ? outcome.code : undefined;
  if (said === undefined) return UNCHANGED_WORDS[outcome.kind] ?? outcome.kind;
  const [, reason = said, code] = /^(.*) \(([^()]+)\)$/.exec(said) ?? [];
  const exact = UNCHANGED_WORDS[`${outcome.kind}:${reason}`];
  if (exact !== undefined) return code === undefined ? exact : `${exact} (${code})`;
  const general = UNCHANGED_WORDS[outcome.kind];
  return general === undefined ? `${outcome.kind}: ${said}` : `${general} (${said})`;
}

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
    case "unchanged":
      return `${t} ${event.user} ${unchangedWords(event.outcome)}`;
    case "retry":
      return `${t} ${event.user} service said ${event.code} — retrying at ${clockTime(event.retryAt, format.timeZone)}`;
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
