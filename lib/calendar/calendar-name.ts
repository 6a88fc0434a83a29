/**
 * A calendar's display name, so a person with several calendars can tell them apart: what the
 * calendar calls itself (an ICS feed's X-WR-CALNAME, a connected calendar's title and account),
 * else what its address shows without its secret.
 */

/** Longest name kept: names are shown in lists, and stored with every source. */
export const MAX_CALENDAR_NAME = 100;

/** One line, no control characters, at most MAX_CALENDAR_NAME characters; undefined when empty. */
export function cleanCalendarName(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const line = raw
    .replace(/\p{Cc}+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (line === "") return undefined;
  const chars = [...line];
  return chars.length <= MAX_CALENDAR_NAME
    ? line
    : `${chars.slice(0, MAX_CALENDAR_NAME - 1).join("")}…`;
}

/** The calendar's X-WR-CALNAME (RFC 5545 unfolding and text unescaping), if it has one. */
export function icsCalendarName(icsText: string): string | undefined {
  // Properties before the first component are the calendar's own.
  const firstComponent = icsText.search(/^BEGIN:(?!VCALENDAR)/im);
  const head = firstComponent > 0 ? icsText.slice(0, firstComponent) : icsText;
  const unfolded = head.replace(/\r?\n[ \t]/g, "");
  const m = /^X-WR-CALNAME(?:;[^:\r\n]*)?:(.*)$/im.exec(unfolded);
  if (!m?.[1]) return undefined;
  const text = m[1].replace(/\\([\\;,nN])/g, (_all, c: string) =>
    c === "n" || c === "N" ? " " : c,
  );
  return cleanCalendarName(text);
}

/**
 * A feed's host and file name (`calendar.example.com holidays.ics`): the file name only when it
 * reads as a name (letters, no digits), since a feed's path is usually its secret.
 */
export function feedName(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const file = decodeURIComponentSafe(parsed.pathname.split("/").pop() ?? "");
  const readable = /^[A-Za-z][A-Za-z _-]{0,40}\.[A-Za-z]{2,8}$/.test(file);
  return cleanCalendarName(readable ? `${parsed.hostname} ${file}` : parsed.hostname);
}

const decodeURIComponentSafe = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** "Work (ada@example.com)", or the one of them there is (a title that is the address once). */
export function accountCalendarName(
  title: string | undefined,
  account: string | undefined,
): string | undefined {
  const t = cleanCalendarName(title);
  const a = cleanCalendarName(account);
  if (t !== undefined && a !== undefined && t.toLowerCase() !== a.toLowerCase()) {
    return cleanCalendarName(`${t} (${a})`);
  }
  return t ?? a;
}
