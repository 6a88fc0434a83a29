import { describe, expect, it } from "vitest";
import { renderSettingsPage } from "../../../../lib/web/pages/settings";
import type { OooEntryView } from "../../../../lib/web/pages/view-model";
import { settingsView } from "./fixtures";
import { textOf } from "./html";

// Issue 28 item 5: an out-of-office entry reads as the person chose it. Whole days show their
// first and last day (stored with an exclusive end: midnight after the last day), without
// times, in the person's zone and locale; the year only when it is not this year. Entries that
// start or end within a day keep their times. The expected words are written out by hand for
// each locale (ICU may or may not repeat a shared month, so both spellings are accepted).

/** Midnight of a day in Berlin in winter (UTC+1), as the form stores it. */
const berlinMidnight = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d) - 3_600_000;
/** 1 December 2026, 10:00 in Berlin: "this year" is 2026. */
const NOW = Date.UTC(2026, 11, 1, 9, 0);

/** The text of the out-of-office list on the page, one line per entry. */
function listed(entry: OooEntryView, user: { tz?: string; locale?: string } = {}): string {
  const html = renderSettingsPage(
    settingsView({
      now: NOW,
      ooo: [entry],
      user: { id: "U1", team: "T1", tz: user.tz ?? "Europe/Berlin", locale: user.locale },
    }),
  );
  const section = /<section aria-labelledby="ooo">([\s\S]*?)<form/.exec(html)?.[1] ?? "";
  return textOf(section).replace(/^Out of office\s*/, "");
}

/** Picking 10 to 12 December 2026: stored from midnight of the 10th to midnight of the 13th. */
const tenToTwelve: OooEntryView = {
  id: "e1",
  start: berlinMidnight(2026, 12, 10),
  end: berlinMidnight(2026, 12, 13),
};

describe("out-of-office entries on the settings page (issue 28 item 5)", () => {
  it("reads whole days as picked, last day included, in British English by default", () => {
    const shown = listed(tenToTwelve);
    expect(shown).toMatch(/^Thu 10( Dec)? – Sat 12 Dec$/);
    expect(shown).not.toMatch(/00:00|Sun|13|2026/);
  });

  it("follows the person's locale: en-US, German, French", () => {
    expect(listed(tenToTwelve, { locale: "en-US" })).toMatch(/^Thu, Dec 10 – Sat, (Dec )?12$/);
    expect(listed(tenToTwelve, { locale: "de-DE" })).toMatch(
      /^Do\., 10\.( Dez\.)? – Sa\., 12\. Dez\.$/,
    );
    expect(listed(tenToTwelve, { locale: "fr-FR" })).toMatch(
      /^jeu\. 10( déc\.)? – sam\. 12 déc\.$/,
    );
  });

  it("reads the days in the person's zone, not the server's", () => {
    // Midnight to midnight in New York (UTC-5) is 05:00 to 05:00 UTC: still whole days there.
    const ny = (d: number) => Date.UTC(2026, 11, d, 5);
    const shown = listed({ id: "e2", start: ny(10), end: ny(13) }, { tz: "America/New_York" });
    expect(shown).toMatch(/^Thu 10( Dec)? – Sat 12 Dec$/);
  });

  it("shows one day once, a range across months with both months, and the year when it is not this year", () => {
    const oneDay = listed({
      id: "e3",
      start: berlinMidnight(2026, 12, 10),
      end: berlinMidnight(2026, 12, 11),
    });
    const acrossMonths = listed({
      id: "e4",
      start: berlinMidnight(2026, 11, 30),
      end: berlinMidnight(2026, 12, 3),
    });
    const acrossYears = listed({
      id: "e5",
      start: berlinMidnight(2026, 12, 30),
      end: berlinMidnight(2027, 1, 3),
    });
    const acrossYearsUs = listed(
      { id: "e5", start: berlinMidnight(2026, 12, 30), end: berlinMidnight(2027, 1, 3) },
      { locale: "en-US" },
    );
    expect(oneDay).toBe("Thu 10 Dec");
    expect(acrossMonths).toBe("Mon 30 Nov – Wed 2 Dec");
    expect(acrossYears).toMatch(/^Wed,? 30 Dec 2026 – Sat,? 2 Jan 2027$/);
    expect(acrossYearsUs).toBe("Wed, Dec 30, 2026 – Sat, Jan 2, 2027");
  });

  it("keeps the times of an entry that starts or ends within a day", () => {
    // 09:00 to 13:00 Berlin time on 10 December; and 14:00 on the 10th to noon on the 11th.
    const morning = listed({
      id: "e6",
      start: Date.UTC(2026, 11, 10, 8),
      end: Date.UTC(2026, 11, 10, 12),
      message: "Dentist",
    });
    const overnight = listed({
      id: "e7",
      start: Date.UTC(2026, 11, 10, 13),
      end: Date.UTC(2026, 11, 11, 11),
    });
    expect(morning).toMatch(/^Thu 10 Dec, 09:00\s*–\s*13:00 Dentist$/);
    expect(overnight).toMatch(/^Thu 10 Dec, 14:00 – Fri 11 Dec, 12:00$/);
  });
});
