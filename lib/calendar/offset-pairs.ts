import { DAY_MS, fixedOffsetZone, ianaZone, type ZoneRules } from "./zones";

/**
 * Zone names that give a standard and a daylight offset and nothing else, as Lotus Notes and
 * older Outlook and Exchange write them: "GMT-05.00/-04.00", "GMT +0100 (Standard) / GMT +0200
 * (Daylight)". Neither says where, so neither says when the clocks change.
 */
export interface OffsetPair {
  /** Milliseconds east of UTC. */
  standard: number;
  daylight: number;
}

const OFFSET = String.raw`(?:UTC|GMT)?\s*([+-])\s*(\d{1,2})(?:[:.]?(\d{2}))?`;
const PAIR = new RegExp(
  String.raw`^\(?\s*${OFFSET}\s*(?:\(standard\))?\s*/\s*${OFFSET}\s*(?:\(daylight\))?\s*\)?$`,
  "i",
);

/** The pair a zone name spells, or undefined when it spells anything else. */
export function offsetPairOf(name: string): OffsetPair | undefined {
  // The pattern is anchored and short; a longer name is no pair and is not worth the scan.
  if (name.length > 80) return undefined;
  const m = PAIR.exec(name.trim());
  if (!m) return undefined;
  const standard = offsetMs(m[1], m[2], m[3]);
  const daylight = offsetMs(m[4], m[5], m[6]);
  return standard === undefined || daylight === undefined ? undefined : { standard, daylight };
}

function offsetMs(sign = "+", hours = "0", minutes = "0"): number | undefined {
  const h = Number(hours);
  const mi = Number(minutes);
  if (h > 14 || mi > 59) return undefined;
  const ms = (h * 60 + mi) * 60_000;
  // "GMT -0000" is offset zero, not -0.
  return sign === "-" && ms > 0 ? -ms : ms;
}

/**
 * The zone read for each pair in use today when neither the person's zone nor the calendar's
 * has it: among the zones whose offsets are exactly those two (tzdata 2025), the one where the
 * most people live. Keys are "lower/higher" offsets in minutes, so hemispheres share a key. The
 * pairs used on both sides of the equator: -06:00/-05:00 is Chicago rather than Easter Island,
 * and -04:00/-03:00 is Santiago (Chile, southern summer time) rather than Halifax or Bermuda.
 * +02:00/+03:00 is Cairo, whose summer time (since 2023) starts four weeks after the EU's.
 */
export const PAIR_ZONES: Readonly<Record<string, string>> = {
  "-600/-540": "America/Adak",
  "-540/-480": "America/Anchorage",
  "-480/-420": "America/Los_Angeles",
  "-420/-360": "America/Denver",
  "-360/-300": "America/Chicago",
  "-300/-240": "America/New_York",
  "-240/-180": "America/Santiago",
  "-210/-150": "America/St_Johns",
  "-180/-120": "America/Miquelon",
  "-120/-60": "America/Nuuk",
  "-60/0": "Atlantic/Azores",
  "0/60": "Europe/London",
  "0/120": "Antarctica/Troll",
  "60/120": "Europe/Berlin",
  "120/180": "Africa/Cairo",
  "570/630": "Australia/Adelaide",
  "600/660": "Australia/Sydney",
  "630/660": "Australia/Lord_Howe",
  "660/720": "Pacific/Norfolk",
  "720/780": "Pacific/Auckland",
  "765/825": "Pacific/Chatham",
};

const pairKey = (pair: OffsetPair): string => {
  const [low, high] = [pair.standard, pair.daylight].sort((a, b) => a - b) as [number, number];
  return `${low / 60_000}/${high / 60_000}`;
};

/** Probes per year: twice a month finds every summer time in use (the shortest is months). */
const PROBES = 24;

/** Whether a zone uses exactly the pair's two offsets in the year that starts at `asOf`. */
export function hasOffsets(zone: ZoneRules, pair: OffsetPair, asOf: number): boolean {
  const seen = new Set<number>();
  for (let i = 0; i < PROBES; i++) seen.add(zone.offsetAt(asOf + (i * 365 * DAY_MS) / PROBES));
  return seen.size === 2 && seen.has(pair.standard) && seen.has(pair.daylight);
}

/** The table's zone for a pair, or undefined for a pair no zone uses (or one tzdata moved). */
export function zoneWithOffsets(pair: OffsetPair, asOf: number): ZoneRules | undefined {
  const id = PAIR_ZONES[pairKey(pair)];
  const zone = id ? ianaZone(id) : undefined;
  return zone && hasOffsets(zone, pair, asOf) ? zone : undefined;
}

/** "UTC-05:00 standard, UTC-04:00 daylight", for warnings. */
export const describePair = (pair: OffsetPair): string =>
  `${fixedOffsetZone(pair.standard).id} standard, ${fixedOffsetZone(pair.daylight).id} daylight`;
