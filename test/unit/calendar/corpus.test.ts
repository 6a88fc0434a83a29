import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ICAL from "ical.js";
import { describe, expect, it } from "vitest";
import { expand } from "#lib/calendar/expand";
import { globalZone } from "#lib/calendar/zone-names";
import { ZoneResolver } from "#lib/calendar/zone-resolver";
import { UTC_ZONE, wallToUtc } from "#lib/calendar/zones";
import type { Occurrence } from "#lib/core/types";

/**
 * Checks `expand` against every expectation in ../shared/corpus/ics/EXPECTED.md (assertions of
 * python-recurring-ical-events and ical.js about their own fixtures). Where we differ, the test
 * says so and why, against RFC 5545.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const corpus = path.resolve(repoRoot, "../shared/corpus/ics");
const hasCorpus = existsSync(path.join(corpus, "EXPECTED.md"));
if (!hasCorpus) console.warn(`corpus tests skipped: ${corpus} is absent (CI always has it)`);

const files = hasCorpus ? readdirSync(corpus).filter((f) => f.endsWith(".ics")) : [];
const text = (prefix: string): string => {
  const name = files.find((f) => f.startsWith(`${prefix}-`));
  if (!name) throw new Error(`corpus file ${prefix} missing`);
  return readFileSync(path.join(corpus, name), "utf8");
};

/** A local wall time ("2019-03-20", "2019-03-20T19:00") in `zone`, or an absolute "...Z". */
function instant(local: string, zone: string): number {
  if (local.endsWith("Z")) return Date.parse(local);
  const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(local);
  if (!m) throw new Error(`bad time ${local}`);
  const rules = globalZone(zone);
  if (!rules) throw new Error(`bad zone ${zone}`);
  const [, y, mo, d, h, mi, s] = m;
  return wallToUtc(
    Date.UTC(+(y ?? 0), +(mo ?? 1) - 1, +(d ?? 1), +(h ?? 0), +(mi ?? 0), +(s ?? 0)),
    rules,
  );
}

/** between(a, b): occurrences overlapping [a, b), bounds read in the file's zone. */
function between(file: string, zone: string, from: string, to: string): Occurrence[] {
  return expand(text(file), { from: instant(from, zone), to: instant(to, zone), userZone: zone })
    .occurrences;
}
const addDays = (date: string, n: number): string => {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};
const day = (file: string, zone: string, date: string) =>
  between(file, zone, date, addDays(date, 1));
const month = (file: string, zone: string, ym: string) => {
  const [y, m] = ym.split("-").map(Number) as [number, number];
  const next = m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, "0")}`;
  return between(file, zone, `${ym}-01`, `${next}-01`);
};
const year = (file: string, zone: string, y: number) =>
  between(file, zone, `${y}-01-01`, `${y + 1}-01-01`);
const all = (file: string, zone = "UTC") => between(file, zone, "1900-01-01", "2100-01-01");
/** at(instant): what is on at t (an empty window [t, t]). */
const atInstant = (file: string, zone: string, t: string) => between(file, zone, t, t);
const iso = (ms: number) => new Date(ms).toISOString().replace(".000", "");
const starts = (list: Occurrence[]) => list.map((o) => iso(o.start));

describe.runIf(hasCorpus)("corpus: python-recurring-ical-events", () => {
  it("01/85 keeps the 19:00 wall time of a Berlin weekly series across DST", () => {
    const uid = "7uartkcnhf0elbvs8md0itrf6c@google.com";
    expect(day("01", "Europe/Berlin", "2019-03-20").find((o) => o.uid === uid)?.start).toBe(
      Date.parse("2019-03-20T18:00:00Z"),
    );
    expect(day("01", "Europe/Berlin", "2019-04-24").find((o) => o.uid === uid)?.start).toBe(
      Date.parse("2019-04-24T17:00:00Z"),
    );
  });

  it("85 has exactly one mB-onTour event on each listed day and matching monthly counts", () => {
    const dates = [
      "2018-09-22",
      "2018-10-20",
      "2018-11-17",
      "2018-12-08",
      "2019-01-12",
      "2019-01-27",
      "2019-02-09",
      "2019-02-24",
      "2019-03-23",
      "2019-04-27",
      "2019-05-25",
      "2019-06-22",
    ];
    for (const d of dates) expect(day("85", "Europe/Berlin", d), d).toHaveLength(1);
    const tour = (o: Occurrence) => o.summary.includes("mB-onTour");
    for (const ym of [
      "2018-09",
      "2018-10",
      "2018-11",
      "2018-12",
      "2019-01",
      "2019-02",
      "2019-03",
      "2019-04",
      "2019-05",
      "2019-06",
      "2019-07",
    ]) {
      expect(month("85", "Europe/Berlin", ym).filter(tour), ym).toHaveLength(
        dates.filter((d) => d.startsWith(ym)).length,
      );
    }
  });

  it("02/03 remove EXDATEd instances of a COUNT series (derived times included)", () => {
    expect(starts(all("02"))).toEqual([
      "2019-03-03T23:30:00Z",
      "2019-03-17T23:30:00Z",
      "2019-03-24T23:30:00Z",
      "2019-03-31T22:30:00Z",
      "2019-04-07T22:30:00Z",
      "2019-04-14T22:30:00Z",
      "2019-04-21T22:30:00Z",
    ]);
    expect(all("02").every((o) => o.end - o.start === 30 * 60_000)).toBe(true);
    expect(all("03")).toHaveLength(6);
  });

  it("04 applies a moved occurrence that precedes its master in the file", () => {
    expect(day("04", "Europe/Berlin", "2021-12-31")).toHaveLength(0);
    const moved = day("04", "Europe/Berlin", "2021-12-17");
    expect(moved).toHaveLength(1);
    expect(moved[0]?.start).toBe(Date.parse("2021-12-17T20:30:00Z"));
    expect(month("04", "Europe/Berlin", "2021-12")).toHaveLength(1);
    expect(all("04", "Europe/Berlin").every((o) => o.transp === "TRANSPARENT")).toBe(true);
  });

  it("05 moves all-day and timed instances in Sydney", () => {
    const z = "Australia/Sydney";
    for (const d of ["2023-08-10", "2023-08-16", "2023-08-24"])
      expect(
        day("05", z, d).map((o) => o.summary),
        d,
      ).toEqual(["All Day"]);
    for (const d of ["2023-08-08", "2023-08-14", "2023-08-22"])
      expect(
        day("05", z, d).map((o) => o.summary),
        d,
      ).toEqual(["Datetime"]);
    expect(day("05", z, "2023-08-15")).toHaveLength(0);
    expect(day("05", z, "2023-08-17")).toHaveLength(0);
    const aug = month("05", z, "2023-08");
    expect(aug).toHaveLength(6);
    const busy = aug
      .filter((o) => o.transp !== "TRANSPARENT")
      .map((o) => `${iso(o.start)}/${iso(o.end)}`);
    expect(busy).toEqual([
      "2023-08-08T04:00:00Z/2023-08-08T05:00:00Z",
      "2023-08-14T04:00:00Z/2023-08-14T05:00:00Z",
      "2023-08-22T04:00:00Z/2023-08-22T05:00:00Z",
    ]);
  });

  it("06 finds three events in a Chicago afternoon", () => {
    expect(between("06", "America/Chicago", "2020-12-11T10:00", "2020-12-11T15:00")).toHaveLength(
      3,
    );
  });

  it("07 follows Lisbon wall time after the DST end", () => {
    const z = "Europe/Lisbon";
    expect(atInstant("07", z, "2020-11-02T11:15")).toHaveLength(0);
    for (const t of ["11:31", "12:00", "12:01", "12:59"])
      expect(
        atInstant("07", z, `2020-11-02T${t}`).map((o) => o.uid),
        t,
      ).toEqual(["EVENT2"]);
    expect(atInstant("07", z, "2020-11-02T13:01")).toHaveLength(0);
  });

  it("08 counts a three-instance series in many windows and zones", () => {
    const z = "Europe/Berlin";
    const far = "2200-01-01";
    expect(between("08", z, "2000-01-01", "2001-01-01")).toHaveLength(0);
    expect(between("08", z, "2030-01-01", far)).toHaveLength(0);
    expect(starts(between("08", z, "2000-01-01", far))).toEqual([
      "2019-03-03T23:00:00Z",
      "2019-03-06T23:00:00Z",
      "2019-03-09T23:00:00Z",
    ]);
    expect(
      [
        ["2019-03-03", 0],
        ["2019-03-05", 1],
        ["2019-03-08", 2],
      ].map(([end]) => between("08", z, "2000-01-01", String(end)).length),
    ).toEqual([0, 1, 2]);
    expect(
      ["2019-03-03", "2019-03-05", "2019-03-08"].map((s) => between("08", z, s, far).length),
    ).toEqual([3, 2, 1]);
    const window = (zone: string, hours: number) => {
      const from = instant("2019-03-04", zone);
      return expand(text("08"), { from, to: from + hours * 3_600_000, userZone: zone }).occurrences
        .length;
    };
    expect([
      window("Europe/Berlin", 24),
      window("America/Panama", 24),
      window("Asia/Ho_Chi_Minh", 24),
    ]).toEqual([1, 0, 1]);
    expect([1, 6, 7].map((h) => window("Asia/Ho_Chi_Minh", h))).toEqual([0, 0, 1]);
  });

  it("39 places floating all-day holidays in the query's zone", () => {
    const mothers = day("39", "UTC", "2014-05-11");
    expect(mothers.map((o) => [o.summary, o.allDay])).toEqual([
      ["Germany: Mother's Day [Not a public holiday]", true],
    ]);
    for (const z of ["Europe/Berlin", "Asia/Ho_Chi_Minh", "America/Panama"]) {
      expect(between("39", z, "2019-01-01T00:00", "2019-01-01T01:00"), z).toHaveLength(1);
    }
  });

  it("86 has 17 transparent holidays in 2020", () => {
    const y = year("86", "UTC", 2020);
    expect(y).toHaveLength(17);
    expect(y.every((o) => o.transp === "TRANSPARENT")).toBe(true);
  });

  it("09 honours Z EXDATEs across the DST change and UNTIL one second before February", () => {
    const z = "Europe/Berlin";
    for (const d of [
      "2019-10-15",
      "2019-10-22",
      "2019-11-05",
      "2019-11-19",
      "2019-11-26",
      "2019-12-03",
      "2019-12-17",
      "2019-12-24",
      "2019-12-31",
    ])
      expect(day("09", z, d), d).toHaveLength(0);
    for (const d of [
      "2019-10-29",
      "2019-11-12",
      "2019-12-10",
      "2020-01-07",
      "2020-01-14",
      "2020-01-21",
      "2020-01-28",
    ])
      expect(day("09", z, d), d).toHaveLength(1);
    expect(all("09", z)).toHaveLength(7);
  });

  it("10 keeps an RDATE that coincides with UNTIL once", () => {
    expect(day("10", "Europe/Berlin", "2020-02-04")).toHaveLength(1);
  });

  it("11 expands an Outlook all-day series with a moved instance", () => {
    expect(between("11", "UTC", "2020-05-25", "2020-09-05")).toHaveLength(15);
    expect(between("11", "UTC", "2020-09-03", "2020-09-05")).toHaveLength(1);
    expect(all("11").every((o) => o.transp === "TRANSPARENT")).toBe(true);
  });

  it("12/13/14 handle DATE starts and DATE UNTIL", () => {
    const afternoon = between("12", "UTC", "2019-06-13T12:00", "2019-06-14");
    expect(afternoon.map((o) => [iso(o.start), o.allDay])).toEqual([
      ["2019-06-13T00:00:00Z", true],
    ]);
    expect(day("12", "UTC", "2019-06-13")).toHaveLength(1);
    expect(all("13", "Europe/London")).toHaveLength(12);
    expect(iso(all("13", "Europe/London").at(-1)?.start ?? 0)).toBe("2019-10-17T13:00:00Z");
    expect(all("14")).toHaveLength(2);
  });

  it("15 does not duplicate an RDATE on an RRULE instance and lets EXDATE remove both", () => {
    expect(day("15", "UTC", "2014-07-05")).toHaveLength(1);
    expect(day("15", "UTC", "2025-07-05")).toHaveLength(0);
    expect(day("15", "UTC", "2015-07-05")).toHaveLength(0);
  });

  it("16 expands an RDATE-only series in X-WR-TIMEZONE Europe/London", () => {
    const z = "Europe/London";
    for (const d of [
      "2013-08-03",
      "2013-08-31",
      "2013-10-05",
      "2013-11-02",
      "2013-11-30",
      "2014-01-04",
      "2014-02-01",
      "2014-03-01",
      "2014-04-05",
      "2014-05-03",
      "2014-05-31",
      "2014-07-05",
    ])
      expect(day("16", z, d), d).toHaveLength(1);
    expect(all("16", z)).toHaveLength(12);
    expect(
      ["2013-08-03T19:00:00Z", "2013-08-03T20:00:00Z", "2013-08-03T21:00:00Z"].map(
        (t) => atInstant("16", z, t).length,
      ),
    ).toEqual([1, 1, 0]);
    expect(
      ["20:00", "21:00", "22:00"].map((t) => atInstant("16", z, `2013-08-03T${t}`).length),
    ).toEqual([1, 1, 0]);
  });

  it("17 keeps UTC times absolute under X-WR-TIMEZONE", () => {
    const z = "America/New_York";
    const at = (t: string) => atInstant("17", z, `2021-12-22T${t}`).length;
    expect(
      ["12:00", "11:59", "12:59", "13:00", "21:00", "20:59", "21:59", "22:00"].map(at),
    ).toEqual([1, 0, 1, 0, 1, 0, 1, 0]);
  });

  it("18 keeps an all-day event on its day only", () => {
    const z = "Europe/London";
    expect(day("18", z, "2020-08-14").map((o) => o.summary)).toEqual(["test2"]);
    expect(day("18", z, "2020-08-13")).toHaveLength(0);
    expect(day("18", z, "2020-08-15")).toHaveLength(0);
  });

  it("19 does not bleed a daily all-day event into the next day", () => {
    for (const d of ["2019-03-04", "2019-03-05", "2019-03-06", "2019-03-07"])
      expect(day("19", "Europe/Berlin", d), d).toHaveLength(1);
    expect(between("19", "Europe/Berlin", "2019-03-05", "2019-04-01").length).toBeGreaterThan(0);
  });

  it("20 maps an unmatched Windows TZID through CLDR and keeps the last (UNTIL) instance", () => {
    const z = "America/Los_Angeles";
    const list = between("20", z, "2023-01-30", "2024-01-30");
    expect(starts(list)).toContain("2023-06-01T17:00:00Z");
    expect(starts(list)).toContain("2023-06-08T17:00:00Z");
    const every = all("20", z);
    expect(every).toHaveLength(23);
    expect(starts(every).slice(0, 1)).toEqual(["2023-01-05T18:00:00Z"]);
    expect(starts(every)).toContain("2023-03-09T18:00:00Z");
    expect(starts(every)).toContain("2023-03-16T17:00:00Z");
    expect(starts(every).at(-1)).toBe("2023-06-08T17:00:00Z");
  });

  it("21/22 read a folded DTSTART, floating and UTC UNTIL alike, and the EXDATE", () => {
    for (const f of ["21", "22"]) {
      const list = between(f, "Europe/Berlin", "2020-04-25", "2020-04-30");
      expect(
        list.map((o) => `${iso(o.start)}/${iso(o.end)}`),
        f,
      ).toEqual([
        "2020-04-26T12:00:00Z/2020-04-26T12:30:00Z",
        "2020-04-28T12:00:00Z/2020-04-28T12:30:00Z",
      ]);
    }
  });

  it("23 removes a cancelled override (upstream returns it with STATUS:CANCELLED)", () => {
    // Upstream lists the 01-29 instance with STATUS CANCELLED. RFC 5545 §3.8.1.11 makes a
    // cancelled RECURRENCE-ID instance a cancelled occurrence, and our contract removes it, so
    // the busy expectation (nothing on 01-29) is what we assert.
    const z = "Europe/Berlin";
    expect(day("23", z, "2020-01-28").map((o) => [iso(o.start), o.status])).toEqual([
      ["2020-01-28T21:00:00Z", undefined],
    ]);
    expect(day("23", z, "2020-01-29")).toHaveLength(0);
    expect(day("23", z, "2020-01-30").map((o) => iso(o.start))).toEqual(["2020-01-30T21:00:00Z"]);
  });

  it("24 handles DURATION on DATE and DATE-TIME starts and a start alone", () => {
    const d = (x: string) => day("24", "UTC", x).length;
    expect(["2018-01-09", "2018-01-10", "2018-01-11", "2018-01-12", "2018-01-14"].map(d)).toEqual([
      0, 1, 1, 1, 0,
    ]);
    const t = (x: string) => atInstant("24", "UTC", `2018-01-15T${x}`).length;
    expect(["09:00", "10:00", "11:00", "12:00", "14:00"].map(t)).toEqual([0, 1, 1, 1, 0]);
    expect(["2018-01-19", "2018-01-20", "2018-01-21"].map(d)).toEqual([0, 1, 0]);
  });

  it("25 applies an override's own DURATION", () => {
    const z = "Europe/Berlin";
    const row = (d: string) =>
      day("25", z, d).map((o) => [o.summary, (o.end - o.start) / 3_600_000]);
    expect(row("2019-03-18")).toEqual([["original event", 1]]);
    expect(row("2019-03-19")).toEqual([["edited duration", 3]]);
    expect(row("2019-03-20")).toEqual([["original event", 1]]);
  });

  it("26 keeps a zero-length event on its instant", () => {
    const z = "Europe/Berlin";
    expect(["2019-03-03", "2019-03-04", "2019-03-05"].map((d) => day("26", z, d).length)).toEqual([
      0, 1, 0,
    ]);
    expect(
      ["07:00", "08:00", "09:00"].map((t) => atInstant("26", z, `2019-03-04T${t}`).length),
    ).toEqual([0, 1, 0]);
    expect(between("26", z, "2019-03-04T07:00", "2019-03-04T08:00")).toHaveLength(0);
    expect(between("26", z, "2019-03-04T08:00", "2019-03-04T09:00")).toHaveLength(1);
    expect(between("26", z, "2019-03-04T08:00", "2019-03-04T08:00")).toHaveLength(1);
  });

  it("27 applies RANGE=THISANDFUTURE overrides to every later instance", () => {
    const q = (a: string, b: string) => {
      const list = between("27", "UTC", a, b);
      return [list.length, list.at(-1)?.summary.split(" ")[0]];
    };
    const S = "20240901T000000Z";
    const cases: Array<[string, string, number, string]> = [
      [S, "2024-09-11T23:59:59Z", 6, "ORIGINAL"],
      [S, "2024-09-13T00:00:00Z", 6, "ORIGINAL"],
      [S, "2024-09-13T23:59:59Z", 7, "MODIFIED"],
      [S, "2024-09-14T23:59:59Z", 8, "MODIFIED"],
      [S, "2024-09-15T23:59:59Z", 9, "MODIFIED"],
      [S, "2024-09-17T23:59:59Z", 10, "MODIFIED"],
      [S, "2024-09-19T23:59:59Z", 11, "MODIFIED"],
      [S, "2024-09-21T23:59:59Z", 11, "MODIFIED"],
      [S, "2024-09-22T00:00:00Z", 11, "MODIFIED"],
      [S, "2024-09-22T23:59:59Z", 12, "EDITED"],
      [S, "2024-09-23T00:00:00Z", 12, "EDITED"],
      [S, "2024-09-23T23:59:59Z", 12, "EDITED"],
      [S, "2024-09-24T23:59:59Z", 13, "EDITED"],
      [S, "2024-09-25T23:59:59Z", 13, "EDITED"],
      ["2024-09-13T00:00:00Z", "2024-09-22T00:00:00Z", 5, "MODIFIED"],
      ["2024-09-13T00:00:00Z", "2024-09-22T23:59:59Z", 6, "EDITED"],
      ["2024-09-24T00:00:00Z", "2024-09-25T23:59:59Z", 1, "EDITED"],
    ];
    for (const [a, b, n, last] of cases)
      expect(q(a === S ? "2024-09-01T00:00:00Z" : a, b), `${a}..${b}`).toEqual([n, last]);
    const span = (d: string) =>
      day("27", "UTC", d).map((o) => `${iso(o.start).slice(11, 16)}-${iso(o.end).slice(11, 16)}`);
    expect([
      span("2024-09-13"),
      span("2024-09-17"),
      span("2024-09-22"),
      span("2024-09-24"),
    ]).toEqual([["09:00-16:00"], ["09:00-16:00"], ["14:22-16:13"], ["14:22-16:13"]]);
    const summary = (d: string) => day("27", "UTC", d).map((o) => o.summary.split(" ")[0]);
    expect(
      [
        "2024-09-01",
        "2024-09-11",
        "2024-09-13",
        "2024-09-14",
        "2024-09-15",
        "2024-09-17",
        "2024-09-19",
        "2024-09-22",
        "2024-09-24",
        "2024-09-26",
      ].map(summary),
    ).toEqual([
      ["ORIGINAL"],
      ["ORIGINAL"],
      ["MODIFIED"],
      ["MODIFIED"],
      ["MODIFIED"],
      ["MODIFIED"],
      ["MODIFIED"],
      ["EDITED"],
      ["EDITED"],
      ["EDITED"],
    ]);
  });

  it("28 matches RECURRENCE-IDs written in Z, as DATE and as Z midnight", () => {
    const z = "Europe/Berlin";
    expect(day("28", z, "2020-09-17").map((o) => o.summary)).toEqual(["Modified event"]);
    expect(day("28", z, "2020-09-14").map((o) => o.summary)).toEqual(["Modified event 1"]);
    expect(day("28", z, "2020-09-21").map((o) => o.summary)).toEqual(["Modified event 2"]);
  });

  it("29/30/31 use the newest SEQUENCE of a master, its EXDATEs and RDATEs", () => {
    expect(all("29")).toHaveLength(2);
    expect(day("29", "UTC", "2024-07-15")).toHaveLength(0);
    for (const d of ["2024-07-01", "2024-07-29"])
      expect(day("29", "UTC", d).map((o) => o.summary)).toEqual(["test123 - edited"]);
    expect(
      ["2024-07-01", "2024-07-15", "2024-07-17", "2024-07-29", "2024-07-30"].map(
        (d) => day("30", "UTC", d).length,
      ),
    ).toEqual([1, 1, 0, 0, 1]);
    expect(day("31", "UTC", "2024-08-19")).toHaveLength(0);
  });

  it("32/33/34 collapse duplicate overrides, apply lower-SEQUENCE overrides, keep distinct UIDs", () => {
    expect(month("32", "UTC", "2024-08")).toHaveLength(2);
    expect(day("33", "UTC", "2020-09-22").map((o) => o.summary)).toEqual(["Modified event"]);
    expect(day("34", "UTC", "2013-08-03")).toHaveLength(3);
  });

  it("35 unions two RRULEs on one VEVENT (Europe/London without VTIMEZONE)", () => {
    const list = year("35", "Europe/London", 2023);
    expect(list).toHaveLength(22);
    const dates = list.map((o) => iso(o.start).slice(0, 10));
    for (const d of ["2023-02-09", "2023-02-13", "2023-02-16", "2023-03-13"])
      expect(dates).toContain(d);
  });

  it("36 yields nothing when UNTIL precedes DTSTART", () => {
    // RFC 5545 makes DTSTART the first instance, but a rule whose UNTIL precedes it is
    // inconsistent; like upstream we produce nothing rather than guess.
    expect(all("36")).toHaveLength(0);
  });

  it("37 reads floating times in X-WR-TIMEZONE Europe/Brussels", () => {
    expect(iso(all("37", "UTC")[0]?.start ?? 0)).toBe("2021-09-16T19:00:00Z");
  });

  it("38 finds an all-day event at an instant in Los Angeles", () => {
    const list = atInstant("38", "America/Los_Angeles", "2021-12-15T17:41:01");
    expect(list.map((o) => o.allDay)).toEqual([true]);
  });

  it("40 applies the 2014 override of a yearly Los Angeles event", () => {
    const from = 1722564000 * 1000;
    const list = expand(text("40"), {
      from,
      to: from + 3_600_000,
      userZone: "America/Los_Angeles",
    }).occurrences;
    expect(list).toHaveLength(1);
    expect(day("40", "America/Los_Angeles", "2024-08-01")).toHaveLength(1);
  });

  it("41 treats a DATE start with a UTC DTEND as UTC midnight", () => {
    expect(all("41").map((o) => `${iso(o.start)}/${iso(o.end)}`)).toEqual([
      "2023-07-24T00:00:00Z/2023-08-17T00:00:00Z",
    ]);
  });

  it("42 ignores an additional RECURRENCE-ID property", () => {
    expect(month("42", "UTC", "2024-07").map((o) => iso(o.start).slice(0, 10))).toEqual([
      "2024-07-01",
      "2024-07-15",
    ]);
  });

  it("43/44 swap an end that precedes the start", () => {
    expect(year("43", "Europe/Berlin", 2019).map((o) => `${iso(o.start)}/${iso(o.end)}`)).toEqual([
      "2019-03-04T07:00:00Z/2019-03-04T07:30:00Z",
    ]);
    const first = all("44", "Europe/Paris")[0];
    expect(first && `${iso(first.start)}/${iso(first.end)}`).toBe(
      "2023-12-18T22:30:00Z/2023-12-18T22:45:00Z",
    );
  });

  it("45 finds one event only in a window that contains it", () => {
    expect(between("45", "Europe/Berlin", "2000-01-01", "2200-01-01")).toHaveLength(1);
    expect(between("45", "Europe/Berlin", "2000-01-01", "2001-01-01")).toHaveLength(0);
    expect(between("45", "Europe/Berlin", "2030-01-01", "2200-01-01")).toHaveLength(0);
  });

  it("83/84 move and resize single instances", () => {
    const z = "Europe/Berlin";
    expect(
      ["2019-03-07", "2019-03-08", "2019-03-09", "2019-03-10"].map((d) =>
        day("83", z, d).map((o) => iso(o.start).slice(11, 16)),
      ),
    ).toEqual([["01:00"], ["00:00"], ["02:00"], ["01:00"]]);
    // A day's own instance is the one starting at or after its local midnight.
    const minutes = (d: string) =>
      day("84", z, d)
        .filter((o) => o.start >= instant(d, z))
        .map((o) => (o.end - o.start) / 60_000);
    expect(["2019-03-07", "2019-03-08", "2019-03-09", "2019-03-10"].map(minutes)).toEqual([
      [60],
      [120],
      [30],
      [1440],
    ]);
  });

  it("87 keeps three series that recur at the same time", () => {
    expect(
      ["2024-09-23", "2024-09-24", "2024-09-25", "2024-09-26", "2024-09-27"].map(
        (d) => day("87", "Europe/London", d).length,
      ),
    ).toEqual([0, 3, 0, 3, 0]);
  });

  it("88 applies an edit with a LOCATION", () => {
    const list = all("88", "Europe/Berlin");
    expect(list.map((o) => o.summary).sort()).toEqual(["test7", "test7", "test7 - edited"]);
    expect(list.find((o) => o.summary === "test7 - edited")?.location).toBe("location");
  });

  it("every corpus file expands without throwing", () => {
    for (const f of files) {
      const r = expand(readFileSync(path.join(corpus, f), "utf8"), {
        from: Date.UTC(2000, 0),
        to: Date.UTC(2030, 0),
        userZone: "UTC",
      });
      expect(Array.isArray(r.occurrences), f).toBe(true);
    }
  });
});

describe.runIf(hasCorpus)("corpus: ical.js", () => {
  const rids = (list: Occurrence[]) => list.map((o) => o.recurrenceId?.replace(".000", ""));

  it("74 expands RRULE ∪ RDATE − EXDATE and applies overrides to RDATE instances", () => {
    const z = "America/Los_Angeles";
    const list = between("74", z, "2012-10-01", "2013-01-02");
    expect(rids(list).sort()).toEqual([
      "2012-10-02T17:00:00Z",
      "2012-11-05T18:00:00Z",
      "2012-11-06T18:00:00Z",
      "2012-11-10T18:00:00Z",
      "2012-11-30T18:00:00Z",
      "2013-01-01T18:00:00Z",
    ]);
    const byRid = (r: string) => list.find((o) => o.recurrenceId?.replace(".000", "") === r);
    const first = byRid("2012-10-02T17:00:00Z");
    expect(first && `${iso(first.start)}/${iso(first.end)}`).toBe(
      "2012-10-02T22:00:00Z/2012-10-02T22:30:00Z",
    );
    const second = byRid("2012-11-05T18:00:00Z");
    expect(second && `${iso(second.start)}/${iso(second.end)}`).toBe(
      "2012-11-07T04:00:00Z/2012-11-07T04:30:00Z",
    );
    const period = between("74", z, "2023-11-25", "2023-11-26");
    expect(period.map((o) => `${iso(o.start)}/${iso(o.end)}`)).toEqual([
      "2023-11-25T09:00:00Z/2023-11-25T12:30:00Z",
    ]);
    expect(starts(between("74", z, "2023-11-23", "2023-11-24"))).toEqual(["2023-11-23T09:00:00Z"]);
  });

  it("75 completes a finite expansion", () => {
    expect(rids(all("75", "America/Los_Angeles")).sort()).toEqual([
      "2012-10-02T17:00:00Z",
      "2012-11-05T18:00:00Z",
      "2012-11-06T18:00:00Z",
      "2012-11-10T18:00:00Z",
      "2012-12-04T18:00:00Z",
    ]);
  });

  it("76 lets a DATE EXDATE remove a DATE-TIME instance", () => {
    expect(starts(all("76"))).toEqual([
      "2024-06-09T03:00:00Z",
      "2024-06-10T03:00:00Z",
      "2024-06-12T03:00:00Z",
    ]);
  });

  it("77 repeats a yearly all-day birthday", () => {
    const z = "America/Los_Angeles";
    // The master (RRULE COUNT=1 + two RDATEs) is what ical.js iterates; the three
    // BIRTHDAY_… components are another UID's orphan overrides and are kept separately.
    const list = between("77", z, "2012-01-01", "2015-01-01").filter((o) =>
      o.uid.startsWith("2014_"),
    );
    expect(list.map((o) => [iso(o.start), o.allDay])).toEqual([
      ["2012-12-10T08:00:00Z", true],
      ["2013-12-10T08:00:00Z", true],
      ["2014-12-10T08:00:00Z", true],
    ]);
  });

  it("79 unions a WEEKLY and a MONTHLY rule", () => {
    const list = all("79", "America/Los_Angeles");
    const weekdays = new Set(list.map((o) => new Date(o.start).getUTCDay()));
    expect(weekdays.has(1)).toBe(true); // weekly on DTSTART's Monday
    expect(weekdays.has(0)).toBe(true); // monthly BYDAY=SU
  });

  it("80/82 use DURATION, or one day for a lone DATE start", () => {
    const z = "America/Los_Angeles";
    expect(all("80", z).map((o) => `${iso(o.start)}/${iso(o.end)}`)).toEqual([
      "2012-06-30T13:00:00Z/2012-07-01T13:00:00Z",
    ]);
    expect(all("82", z).map((o) => [iso(o.start), iso(o.end), o.allDay])).toEqual([
      ["2012-06-30T07:00:00Z", "2012-07-01T07:00:00Z", true],
    ]);
  });

  it("81 reads offsets from a VTIMEZONE with an RRULE UNTIL", () => {
    const root = new ICAL.Component(ICAL.parse(text("81")));
    const zone = new ZoneResolver(root, { user: UTC_ZONE, asOf: 0 }).resolve(
      "Makebelieve/RRULE_UNTIL",
    );
    const offset = (y: number, h: number) =>
      zone.utcOffset(
        new ICAL.Time({ year: y, month: 1, day: 1, hour: h, minute: 0, second: 0 }, zone),
      ) / 3600;
    expect([offset(1975, 1), offset(1975, 3), offset(1985, 3)]).toEqual([-5, -4, -4]);
  });
});
