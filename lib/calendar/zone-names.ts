import { findIana } from "windows-iana";
import { windowsIdOfDisplayName } from "./windows-display-names";
import { fixedOffsetZone, ianaZone, UTC_ZONE, type ZoneRules } from "./zones";

/** Strips the decorations producers put around zone ids: quotes, trailing colons, spaces. */
export const cleanTzid = (raw: string): string =>
  raw
    .trim()
    .replace(/^"+|"+$/g, "")
    .replace(/:+$/, "")
    .trim();

/**
 * Resolves a zone name that needs no definition from the feed, in this order: an IANA id, a
 * Windows zone id (CLDR windowsZones), a prefixed IANA path, an Outlook display name
 * ("(UTC-05:00) Eastern Time (US & Canada)"), a fixed-offset spelling ("GMT+0100"). The offset
 * spellings come last because they know no DST: a display name whose place is known keeps it.
 */
export function globalZone(raw: string): ZoneRules | undefined {
  const id = cleanTzid(raw);
  if (id === "") return undefined;
  // Exchange writes its own name for UTC ("tzone://Microsoft/Utc"; Graph does too).
  if (/^(utc|gmt|z|tzone:\/\/microsoft\/utc)$/i.test(id)) return UTC_ZONE;
  // Windows names first: "Pacific Standard Time" is not an IANA id, but "UTC" is both.
  const windows = ianaOfWindowsId(id);
  if (windows) return ianaZone(windows);
  const direct = ianaZone(id);
  if (direct) return direct;
  // Producers such as Mozilla and libical prefix ids: "/mozilla.org/20050126_1/Europe/Berlin".
  const parts = id.split("/").filter((p) => p !== "");
  for (let i = 1; i < parts.length - 1; i++) {
    const candidate = ianaZone(parts.slice(i).join("/"));
    if (candidate) return candidate;
  }
  const display = windowsIdOfDisplayName(id);
  const fromDisplay = display ? ianaOfWindowsId(display) : undefined;
  if (fromDisplay) return ianaZone(fromDisplay);
  const offset = fixedOffsetOf(id);
  return offset === undefined ? undefined : fixedOffsetZone(offset);
}

/** Exchange numbers variants of a Windows zone: "Eastern Standard Time 1" is that zone. */
const VERSIONED_WINDOWS_ID = /^(.+ Time) \d{1,2}$/i;

function ianaOfWindowsId(name: string): string | undefined {
  const versioned = VERSIONED_WINDOWS_ID.exec(name)?.[1];
  try {
    return findIana(name)[0] ?? (versioned ? findIana(versioned)[0] : undefined);
  } catch {
    return undefined;
  }
}

/**
 * "UTC+01", "GMT+0100", "(GMT +01:00)", "(UTC+05:30) Some place", "+02:00". A bare "(UTC)" is
 * offset zero. A standard/daylight pair ("GMT-05.00/-04.00") is read as its first offset here;
 * event TZIDs meet offset-pairs.ts first, which knows the person reading them.
 */
const FIXED_OFFSET =
  /^\(?\s*(?:UTC|GMT)?\s*(?:([+-])\s*(\d{1,2})(?:[:.]?(\d{2}))?)?(?:\s*\/\s*[+-]?\s*\d{1,2}(?:[:.]?\d{2})?)?\s*\)?(?:\s.*)?$/i;

/** The offset in ms that a fixed-offset spelling names, or undefined for anything else. */
export function fixedOffsetOf(name: string): number | undefined {
  const m = FIXED_OFFSET.exec(name.trim());
  if (!m) return undefined;
  const [, sign, hours, minutes] = m;
  if (!sign) {
    // Without a sign only "(UTC)"/"(GMT)" and their display names mean offset zero.
    return /^\(\s*(UTC|GMT)\s*\)/i.test(name.trim()) ? 0 : undefined;
  }
  const h = Number(hours);
  const mi = Number(minutes ?? 0);
  if (h > 14 || mi > 59) return undefined;
  return (sign === "-" ? -1 : 1) * (h * 60 + mi) * 60_000;
}
