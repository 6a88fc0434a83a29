import ICAL from "ical.js";
import { wallMs, wallToUtc, type ZoneRules } from "./zones";

/*
 * The zones that need ical.js: a feed's VTIMEZONE, and the Timezone class ical.js's recurrence
 * expansion calls. Kept apart from ./zones so code that only does zone arithmetic (the settings
 * page) does not carry ical.js in its bundle.
 */

interface IcalChange {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  utcOffset: number;
  prevUtcOffset: number;
}
/** The parts of ical.js's Timezone that are not in its type declarations. */
interface IcalTimezoneInternals {
  changes: IcalChange[];
  _ensureCoverage(year: number): void;
}

/**
 * A zone defined by a VTIMEZONE of the feed. ical.js expands the observances (including
 * year-0001 starts and many eras); we only read its transition list, stored in UTC.
 */
export function vtimezoneZone(component: ICAL.Component, id: string): ZoneRules {
  const inner = new ICAL.Timezone({ component, tzid: id }) as unknown as IcalTimezoneInternals;
  let coveredYear = Number.NEGATIVE_INFINITY;
  let instants: number[] = [];
  const ensure = (year: number) => {
    if (year <= coveredYear) return;
    inner._ensureCoverage(year + 1);
    coveredYear = year + 1;
    instants = inner.changes.map((c) => wallMs(c.year, c.month, c.day, c.hour, c.minute, c.second));
  };
  return {
    id,
    offsetAt(utcMs) {
      ensure(new Date(utcMs).getUTCFullYear());
      const changes = inner.changes;
      if (changes.length === 0) return 0;
      let lo = 0;
      let hi = instants.length - 1;
      let found = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if ((instants[mid] ?? 0) <= utcMs) {
          found = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      const change = found >= 0 ? changes[found] : changes[0];
      if (!change) return 0;
      return (found >= 0 ? change.utcOffset : change.prevUtcOffset) * 1000;
    },
  };
}

/** An ical.js Timezone whose wall-time arithmetic follows RFC 5545 via `wallToUtc`. */
export class RfcTimezone extends ICAL.Timezone {
  constructor(readonly rules: ZoneRules) {
    super({ tzid: rules.id });
  }
  override utcOffset(tt: ICAL.Time): number {
    const wall = wallMs(tt.year, tt.month, tt.day, tt.hour, tt.minute, tt.second);
    return (wall - wallToUtc(wall, this.rules)) / 1000;
  }
}
