import type { OutOfOfficeInput } from "#lib/app/contracts";
import { MAX_ENTRY_ID_LENGTH } from "#lib/core/ids";
import { zonedToEpoch } from "#lib/core/zoned-time";

export { zonedToEpoch };

export const OOO_USAGE =
  "usage: /ooo YYYY-MM-DD[THH:MM] [to YYYY-MM-DD[THH:MM]] [message] · /ooo until YYYY-MM-DD [message] · /ooo list · /ooo cancel ID";

export type OooCommand =
  | { kind: "list" }
  | { kind: "cancel"; id: string }
  | { kind: "schedule"; input: OutOfOfficeInput };

export class OooCommandError extends Error {
  override name = "OooCommandError";
  readonly code = "bad_command";
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}))?$/;

function parseLocal(token: string, zone: string, endOfDay: boolean): number {
  const m = DATE_TIME.exec(token);
  if (!m) throw new OooCommandError(`"${token}" is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM)`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(y, mo - 1, d));
  if (probe.getUTCMonth() !== mo - 1 || probe.getUTCDate() !== d) {
    throw new OooCommandError(`"${token}" is not a calendar date`);
  }
  if (m[4] !== undefined) {
    const [hh, mm] = [Number(m[4]), Number(m[5])];
    if (hh > 23 || mm > 59) throw new OooCommandError(`"${token}" is not a time of day`);
    return zonedToEpoch({ y, m: mo, d, hh, mm }, zone);
  }
  // A bare date as an end means "through that day": up to the next midnight.
  if (endOfDay) {
    const next = new Date(Date.UTC(y, mo - 1, d + 1));
    return zonedToEpoch(
      { y: next.getUTCFullYear(), m: next.getUTCMonth() + 1, d: next.getUTCDate(), hh: 0, mm: 0 },
      zone,
    );
  }
  return zonedToEpoch({ y, m: mo, d, hh: 0, mm: 0 }, zone);
}

/** Parses the `/ooo` text. Dates are read in the user's zone; `now` is epoch ms. */
export function parseOooCommand(text: string, opts: { now: number; zone: string }): OooCommand {
  const words = text
    .trim()
    .split(/\s+/)
    .filter((w) => w !== "");
  const [first, ...rest] = words;
  if (first === undefined || first === "help") throw new OooCommandError(OOO_USAGE);
  if (first === "list" && rest.length === 0) return { kind: "list" };
  if (first === "cancel") {
    const id = rest[0];
    if (rest.length !== 1 || !id) throw new OooCommandError("usage: /ooo cancel ID");
    // Longer ids were never issued (and would overflow the store's sort key).
    if (id.length > MAX_ENTRY_ID_LENGTH) {
      throw new OooCommandError(
        `No out-of-office with that id: ids are at most ${MAX_ENTRY_ID_LENGTH} characters.`,
      );
    }
    return { kind: "cancel", id };
  }
  let start: number;
  let end: number;
  let messageWords: string[];
  if (first === "until") {
    const [until, ...more] = rest;
    if (!until) throw new OooCommandError("usage: /ooo until YYYY-MM-DD [message]");
    start = opts.now;
    end = parseLocal(until, opts.zone, true);
    messageWords = more;
  } else {
    start = parseLocal(first, opts.zone, false);
    if (rest[0] === "to" || rest[0] === "until") {
      const until = rest[1];
      if (!until) throw new OooCommandError(`missing date after "${rest[0]}"`);
      end = parseLocal(until, opts.zone, true);
      messageWords = rest.slice(2);
    } else {
      end = parseLocal(first, opts.zone, true);
      messageWords = rest;
    }
  }
  if (end <= start) throw new OooCommandError("the end must be after the start");
  if (end <= opts.now) throw new OooCommandError("that time is already over");
  const message = messageWords.join(" ");
  if (message.length > 100) throw new OooCommandError("the message is longer than 100 characters");
  return { kind: "schedule", input: { start, end, ...(message ? { text: message } : {}) } };
}
