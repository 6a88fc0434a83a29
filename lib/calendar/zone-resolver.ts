import ICAL from "ical.js";
import { RfcTimezone, vtimezoneZone } from "./ical-zones";
import { describePair, hasOffsets, offsetPairOf, zoneWithOffsets } from "./offset-pairs";
import { type CalendarWarning, oneLine } from "./parse";
import { cleanTzid, globalZone } from "./zone-names";
import { fixedOffsetZone, type ZoneRules } from "./zones";

/** The zones an unreadable TZID falls back to: the calendar's X-WR-TIMEZONE, then the user's. */
export interface ZoneFallbacks {
  calendar?: ZoneRules;
  user: ZoneRules;
  /**
   * An instant near the events read (the window's start): a zone "has" the offsets that a
   * TZID such as "GMT-05.00/-04.00" names if it uses exactly those in the year from here.
   */
  asOf: number;
}

/**
 * Per-feed TZID resolver. An event is never lost to its zone name; the policy, in order:
 *  1. the feed's own VTIMEZONE, or an IANA id (offsets from Node's tzdata);
 *  2. a standard/daylight pair ("GMT-05.00/-04.00"): the user's zone if it has exactly those
 *     offsets, else the calendar's X-WR-TIMEZONE if it has, else the most populous zone that has
 *     (see offset-pairs.ts), else the standard offset alone;
 *  3. a Windows zone id or an Outlook display name (CLDR mapping);
 *  4. a fixed-offset spelling ("UTC+01"), read as that offset;
 *  5. the calendar's X-WR-TIMEZONE;
 *  6. the user's zone.
 * A pair read in another zone than the user's and steps 5 and 6 are guesses, so each such TZID
 * is reported once through `warn`, by name.
 */
export class ZoneResolver {
  private readonly cache = new Map<string, RfcTimezone>();
  private readonly definitions = new Map<string, ICAL.Component>();

  constructor(
    root: ICAL.Component | undefined,
    private readonly fallbacks: ZoneFallbacks,
    private readonly warn: (warning: CalendarWarning) => void = () => {},
  ) {
    for (const vtz of root?.getAllSubcomponents("vtimezone") ?? []) {
      // A TZID that is not text (TZID;VALUE=DATE:...) defines nothing.
      const tzid: unknown = vtz.getFirstProperty("tzid")?.toJSON()[3];
      if (typeof tzid === "string") {
        this.definitions.set(tzid, vtz);
        if (!this.definitions.has(cleanTzid(tzid))) this.definitions.set(cleanTzid(tzid), vtz);
      }
    }
  }

  /** The zone a TZID stands for; never fails (see the policy above). */
  resolve(tzid: string): RfcTimezone {
    const hit = this.cache.get(tzid);
    if (hit) return hit;
    const definition = this.definitions.get(tzid) ?? this.definitions.get(cleanTzid(tzid));
    let rules: ZoneRules | undefined;
    let problem: string | undefined;
    if (definition && hasObservances(definition)) {
      try {
        problem = observanceProblem(definition);
        if (!problem) rules = vtimezoneZone(definition, tzid);
      } catch (error: unknown) {
        problem = oneLine(error);
      }
    }
    // A broken definition of a zone that tzdata knows loses nothing: tzdata has the rules.
    rules ??= this.offsetPairZone(tzid) ?? globalZone(tzid) ?? this.fallback(tzid, problem);
    const zone = new RfcTimezone(rules);
    this.cache.set(tzid, zone);
    return zone;
  }

  /** The zone for a TZID that names only a standard and a daylight offset (policy step 2). */
  private offsetPairZone(tzid: string): ZoneRules | undefined {
    const pair = offsetPairOf(cleanTzid(tzid));
    if (!pair) return undefined;
    // Equal offsets ("GMT +0100 (Standard) / GMT +0100 (Daylight)") are a zone without DST.
    if (pair.standard === pair.daylight) return fixedOffsetZone(pair.standard);
    const { calendar, user, asOf } = this.fallbacks;
    if (hasOffsets(user, pair, asOf)) return user;
    const calendarFits = calendar !== undefined && hasOffsets(calendar, pair, asOf);
    const populous = calendarFits ? undefined : zoneWithOffsets(pair, asOf);
    const rules = (calendarFits ? calendar : populous) ?? fixedOffsetZone(pair.standard);
    const where = calendarFits
      ? `${rules.id}, the calendar's X-WR-TIMEZONE`
      : populous
        ? `${rules.id}, the most populous zone with those offsets`
        : `${rules.id}, as no zone has those offsets`;
    this.warn({
      tzid,
      message: `time zone "${tzid}" names ${describePair(pair)}; read in ${where}`,
    });
    return rules;
  }

  private fallback(tzid: string, problem: string | undefined): ZoneRules {
    const { calendar, user } = this.fallbacks;
    const rules = calendar ?? user;
    const whose = calendar ? "the calendar's X-WR-TIMEZONE" : "the user's zone";
    const why = problem ? `time zone "${tzid}": ${problem}` : `unknown time zone "${tzid}"`;
    this.warn({ tzid, message: `${why}; read in ${rules.id}, ${whose}` });
    return rules;
  }
}

const SUB_DAILY = new Set(["SECONDLY", "MINUTELY", "HOURLY"]);

/**
 * Why a VTIMEZONE cannot be used, if it cannot. ical.js expands every observance from its
 * DTSTART up to the year asked for, so a rule changing the offset every second since 1970 would
 * run for billions of steps; real zones change it a few times a year.
 */
function observanceProblem(vtz: ICAL.Component): string | undefined {
  for (const observance of vtz.getAllSubcomponents()) {
    for (const prop of observance.getAllProperties("rrule")) {
      for (const rule of prop.getValues()) {
        if (rule instanceof ICAL.Recur && rule.freq && SUB_DAILY.has(rule.freq)) {
          return `observance repeats ${rule.freq}, more often than any offset changes`;
        }
      }
    }
  }
  return undefined;
}

const hasObservances = (vtz: ICAL.Component): boolean =>
  vtz.getAllSubcomponents("standard").length + vtz.getAllSubcomponents("daylight").length > 0;
