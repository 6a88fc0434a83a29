import { describe, expect, it } from "vitest";
import { BLOCK_KIT_LIMITS, checkHomeView } from "#emulator/blockkit";
import type { CalendarHealthView } from "#lib/app/notify/calendar-health";
import { renderHome } from "#lib/app/notify/home-blocks";
import type { InstalledHome } from "#lib/app/notify/home-model";

/**
 * The Home view of a person with 20 calendars, every part at its longest (names a feed may
 * carry, errors, reconnects, a long status), checked by the emulator's Block Kit rules, which
 * restate the platform's documented limits (100 blocks in a Home tab, 3,000 characters of text,
 * 75 of a button's text), not the renderer's own.
 */

const AT = Date.UTC(2026, 2, 10, 9, 0);
const long = (n: number, seed: string) => seed.repeat(Math.ceil(n / seed.length)).slice(0, n);

function calendar(i: number): CalendarHealthView {
  return {
    id: `ics-${i}`,
    kind: i % 3 === 0 ? "google" : "ics",
    // X-WR-CALNAME has no length limit of its own; names of thousands of characters are real.
    name: `${long(4000, "Ünïcödé calendar *bold* <&> ")} ${i}`,
    lastGoodAt: AT - i * 60_000,
    ...(i % 2 === 0
      ? {
          error: {
            words: long(3000, "The address answered 404: it is no longer there. "),
            since: AT - 7 * 3_600_000,
          },
        }
      : { nextReadAt: AT + 15 * 60_000 }),
    ...(i % 3 === 0 ? { reconnect: true } : {}),
  };
}

const home: InstalledHome = {
  installed: true,
  tz: "Europe/Berlin",
  at: AT,
  connection: "revoked",
  paused: false,
  current: { text: long(100, "Quarterly planning "), emoji: ":calendar:", until: AT + 3_600_000 },
  next: { at: AT + 3_600_000, status: { text: long(100, "Focus "), emoji: ":headphones:" } },
  calendars: Array.from({ length: 20 }, (_, i) => calendar(i)),
  dnd: true,
  dmsOff: false,
};

const links = {
  install: `https://statuspilot.example/install`,
  settings: `https://statuspilot.example/settings/open?link=${long(300, "a")}`,
  reconnect: (kind: string) => `https://statuspilot.example/connect/${kind}`,
};

describe("the Home view at its largest", () => {
  it("keeps a person with 20 calendars within Block Kit's documented limits", () => {
    // Act
    const view = renderHome(home, links);
    // Assess
    expect(checkHomeView({ type: "home", ...view })).toEqual([]);
    expect(view.blocks.length).toBeLessThanOrEqual(BLOCK_KIT_LIMITS.homeBlocks);
    // Every calendar is there, by the start of its name.
    const text = JSON.stringify(view.blocks);
    expect((text.match(/Ünïcödé calendar/g) ?? []).length).toBeGreaterThanOrEqual(20);
  });

  it("keeps the largest number of calendars a person may have within them too", async () => {
    // Prepare
    const { MAX_CALENDARS } = await import("#lib/app/inputs");
    const many = {
      ...home,
      calendars: Array.from({ length: MAX_CALENDARS }, (_, i) => calendar(i)),
    };
    // Act
    const view = renderHome(many, links);
    // Assess
    expect(checkHomeView({ type: "home", ...view })).toEqual([]);
  });
});
