import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The calendar tests' fixtures: real .ics text, and wall time computed apart from the code. */

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/ics");

/** A fixture feed's text (test/fixtures/ics/`name`). */
export const icsFixture = (name: string): string => readFileSync(path.join(FIXTURES, name), "utf8");

/** Berlin wall time of an instant, "2025-03-19 10:00", by Intl, not by the code under test. */
export const berlinWall = new Intl.DateTimeFormat("sv-SE", {
  timeZone: "Europe/Berlin",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
});
