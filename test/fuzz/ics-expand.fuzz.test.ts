import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CalendarParseError } from "#lib/calendar/errors";
import { expand } from "#lib/calendar/expand";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ownDir = path.join(repoRoot, "test/fixtures/ics");
const corpusDir = path.resolve(repoRoot, "../shared/corpus/ics");
const hasCorpus = existsSync(corpusDir);
if (!hasCorpus)
  console.warn(`ICS fuzz: ${corpusDir} is absent; fuzzing the project's own feeds only`);

const feedsIn = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".ics"))
    .sort()
    .map((f) => ({ name: f, text: readFileSync(path.join(dir, f), "utf8") }));

const ownFeeds = feedsIn(ownDir);

/** Content lines with folding undone, so a mutation hits a whole property. */
const unfold = (ics: string): string[] => ics.replace(/\r?\n[ \t]/g, "").split(/\r?\n/);

const WINDOW = { from: Date.UTC(2000, 0, 1), to: Date.UTC(2000, 0, 1) + 400 * 86_400_000 };

/** A window near the feed's own dates, so recurrences and overrides are actually expanded. */
function windowFor(ics: string): { from: number; to: number } {
  const m = /DTSTART[^:\r\n]*:(\d{4})(\d{2})(\d{2})/.exec(ics);
  if (!m) return WINDOW;
  const from = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) - 7 * 86_400_000;
  return { from, to: from + 120 * 86_400_000 };
}

const garbageValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    "",
    "20261345T256199",
    "2026-03-09T09:00:00",
    "99999999T999999Z",
    "FREQ=SECONDLY;INTERVAL=0",
    "FREQ=DAILY;COUNT=-1",
    "FREQ=YEARLY;BYMONTH=13;BYDAY=9XX",
    "P-1D",
    "PT",
    "Mars/Olympus_Mons",
    "\u0000\u0001",
    "\uD800",
    "😀".repeat(50),
    ";;;:::",
  ),
  fc.string({ minLength: 2000, maxLength: 5000 }),
);

type Mutation =
  | { kind: "delete"; at: number }
  | { kind: "duplicate"; at: number }
  | { kind: "swap"; at: number; with: number }
  | { kind: "value"; at: number; value: string }
  | { kind: "param"; at: number; param: string }
  | { kind: "insert"; at: number; line: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("duplicate" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("swap" as const), at: fc.nat(), with: fc.nat() }),
  fc.record({ kind: fc.constant("value" as const), at: fc.nat(), value: garbageValue }),
  fc.record({
    kind: fc.constant("param" as const),
    at: fc.nat(),
    param: fc.constantFrom(
      "TZID=Nowhere/Never",
      "VALUE=DATE",
      "VALUE=PERIOD",
      "TZID=",
      'X="unterminated',
    ),
  }),
  fc.record({
    kind: fc.constant("insert" as const),
    at: fc.nat(),
    line: fc.oneof(
      fc.constantFrom(
        "BEGIN:VEVENT",
        "END:VEVENT",
        "BEGIN:VTIMEZONE",
        "END:VTIMEZONE",
        "RECURRENCE-ID:20000101T000000Z",
        "EXDATE:garbage",
        "RDATE;VALUE=PERIOD:20000101T000000Z/PT1H",
        "STATUS:CANCELLED",
        "DURATION:P9999W",
      ),
      fc.string({ maxLength: 60 }),
    ),
  }),
);

/** Applies mutations inside the VCALENDAR envelope, which stays intact. */
function mutate(ics: string, mutations: Mutation[]): string {
  const lines = unfold(ics).filter((l) => l !== "");
  const inner = lines.slice(1, -1);
  for (const m of mutations) {
    if (inner.length === 0) break;
    const i = m.at % inner.length;
    const line = inner[i] as string;
    const colon = line.indexOf(":");
    if (m.kind === "delete") inner.splice(i, 1);
    else if (m.kind === "duplicate") inner.splice(i, 0, line);
    else if (m.kind === "swap") {
      const j = m.with % inner.length;
      inner[i] = inner[j] as string;
      inner[j] = line;
    } else if (m.kind === "value")
      inner[i] = `${colon < 0 ? line : line.slice(0, colon)}:${m.value}`;
    else if (m.kind === "param" && colon > 0) {
      inner[i] = `${line.slice(0, colon).split(";")[0]};${m.param}${line.slice(colon)}`;
    } else if (m.kind === "insert") inner.splice(i, 0, m.line);
  }
  return [lines[0], ...inner, lines.at(-1)].join("\r\n");
}

const TOP_LEVEL = /^BEGIN:(VEVENT|VTIMEZONE|VTODO|VJOURNAL|VFREEBUSY|VAVAILABILITY)\s*$/i;

/**
 * Whether some VEVENT's BEGIN line is followed by its END line with no other top-level component
 * or calendar boundary in between: an event that is still recognisably iCalendar.
 */
function hasIntactEvent(ics: string): boolean {
  let open: string | undefined;
  for (const line of ics.split(/\r\n?|\n/)) {
    const begin = TOP_LEVEL.exec(line)?.[1]?.toUpperCase();
    if (begin) open = begin;
    else if (/^(BEGIN|END):VCALENDAR\s*$/i.test(line)) open = undefined;
    else if (open === "VEVENT" && /^END:VEVENT\s*$/i.test(line)) return true;
  }
  return false;
}

type Expand = typeof expand;
const OPTIONS = { userZone: "Europe/Berlin", userEmails: ["me@example.com"] };

/**
 * The contract of expand for bad content, as a list of violations (empty when it holds):
 * - the only error it may throw is CalendarParseError, and only when the text is not iCalendar
 *   at all (no BEGIN:VCALENDAR, or not one intact VEVENT), so an intact event is never lost;
 * - every skipped event carries a one-line, non-empty reason, every warning a one-line message;
 * - every occurrence is a finite, ordered span that meets the window.
 */
function contractViolations(ics: string, run: Expand = expand): string[] {
  const window = windowFor(ics);
  let result: ReturnType<Expand>;
  try {
    result = run(ics, { ...window, ...OPTIONS });
  } catch (error: unknown) {
    if (!(error instanceof CalendarParseError)) return [`threw ${String(error)}`];
    const isCalendar = /^BEGIN:VCALENDAR\s*$/im.test(ics) && hasIntactEvent(ics);
    return isCalendar ? [`threw CalendarParseError with an intact event: ${error.message}`] : [];
  }
  const violations: string[] = [];
  for (const s of result.skipped) {
    if (typeof s.reason !== "string" || s.reason.trim() === "" || /[\r\n]/.test(s.reason)) {
      violations.push(`skip without a one-line reason: ${JSON.stringify(s)}`);
    }
  }
  for (const w of result.warnings) {
    if (typeof w.message !== "string" || w.message.trim() === "" || /[\r\n]/.test(w.message)) {
      violations.push(`warning without a one-line message: ${JSON.stringify(w)}`);
    }
  }
  for (const o of result.occurrences) {
    const sane = Number.isFinite(o.start) && Number.isFinite(o.end) && o.end >= o.start;
    if (!sane || !(o.start < window.to && o.end >= window.from)) {
      violations.push(`bad occurrence ${o.uid} ${o.start}..${o.end}`);
    }
  }
  return violations;
}

function assertExpandsSafely(ics: string): void {
  expect(contractViolations(ics)).toEqual([]);
}

const feedArb = (feeds: Array<{ name: string; text: string }>) =>
  fc
    .constantFrom(...feeds)
    .chain((feed) =>
      fc.tuple(fc.constant(feed), fc.array(mutation, { minLength: 1, maxLength: 6 })),
    );

describe("expand on mutated real feeds", () => {
  it("never throws while an event survives in the project's own feeds with lines deleted, swapped or garbled, and gives every skip a reason", () => {
    fc.assert(
      fc.property(feedArb(ownFeeds), ([feed, mutations]) => {
        assertExpandsSafely(mutate(feed.text, mutations));
      }),
      { numRuns: 300, seed: 6001 },
    );
  });

  it("refuses truncated or random text with a CalendarParseError only when no event is intact", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc
            .constantFrom(...ownFeeds)
            .chain((f) => fc.nat({ max: f.text.length }).map((n) => f.text.slice(0, n))),
        ),
        (text) => {
          assertExpandsSafely(text);
        },
      ),
      { numRuns: 200, seed: 6002 },
    );
  });

  describe.runIf(hasCorpus)("with the shared corpus of real feeds", () => {
    const corpus = hasCorpus ? feedsIn(corpusDir) : [];
    it("never throws while an event survives in a mutated corpus feed, and gives every skip a reason", () => {
      fc.assert(
        fc.property(feedArb(corpus), ([feed, mutations]) => {
          assertExpandsSafely(mutate(feed.text, mutations));
        }),
        { numRuns: 400, seed: 6003 },
      );
    });
  });
});

describe("expand on a feed whose time zone block never ends", () => {
  it("still expands the intact event after a VTIMEZONE whose END line is garbled", () => {
    // Prepare: the minimal form of a fuzz counterexample (a mangled END:VTIMEZONE).
    const ics = INTACT_AFTER_GARBLED_ZONE;
    // Act
    const result = expand(ics, {
      from: Date.UTC(2026, 2, 9),
      to: Date.UTC(2026, 2, 10),
      userZone: "UTC",
    });
    // Assess
    expect(result.occurrences.map((o) => o.uid)).toEqual(["intact@example.com"]);
    expect(result.skipped).toEqual([
      { uid: "Custom/Zone", reason: "VTIMEZONE component began but did not end" },
    ]);
  });
});

const INTACT_AFTER_GARBLED_ZONE = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "BEGIN:VTIMEZONE",
  "TZID:Custom/Zone",
  "BEGIN:STANDARD",
  "DTSTART:16010101T000000",
  "TZOFFSETFROM:+0000",
  "TZOFFSETTO:+0000",
  "END:STANDARD",
  "END;X=1:VTIMEZONE",
  "BEGIN:VEVENT",
  "UID:intact@example.com",
  "DTSTART:20260309T090000Z",
  "DTEND:20260309T100000Z",
  "SUMMARY:Standup",
  "END:VEVENT",
  "END:VCALENDAR",
].join("\r\n");

describe("the expand contract check", () => {
  // The fuzz is only as good as its check: each broken expand below must be caught.
  const feed = INTACT_AFTER_GARBLED_ZONE;
  const occurrence = { uid: "x", allDay: false, summary: "", attendeeCount: 0 };

  it("reports a raw error escaping expand", () => {
    // Prepare
    const broken: Expand = () => {
      throw new Error('Could not extract integer from "Wart"');
    };
    // Act / Assess
    expect(contractViolations(feed, broken)).toEqual([
      'threw Error: Could not extract integer from "Wart"',
    ]);
  });

  it("reports a CalendarParseError for a feed that still has an intact event", () => {
    // Prepare
    const broken: Expand = () => {
      throw new CalendarParseError("unparseable");
    };
    // Act / Assess
    expect(contractViolations(feed, broken)).toEqual([
      "threw CalendarParseError with an intact event: unparseable",
    ]);
    expect(contractViolations("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:cut", broken)).toEqual([]);
  });

  it("reports a skip without a reason and an occurrence that ends before it starts", () => {
    // Prepare
    const start = Date.UTC(2026, 2, 9, 9);
    const broken: Expand = () => ({
      skipped: [{ uid: "a", reason: " " }, { reason: "two\nlines" }],
      occurrences: [{ ...occurrence, start, end: start - 1 }],
      warnings: [],
    });
    // Act
    const violations = contractViolations(feed, broken);
    // Assess
    expect(violations).toHaveLength(3);
  });
});
