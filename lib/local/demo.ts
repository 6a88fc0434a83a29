import type { Clock } from "#lib/core/clock";
import { type DemoEvent, demoEvents, renderIcs } from "./demo-feed";
import { type IcsServer, startIcsServer } from "./ics-server";
import type { LocalUserConfig } from "./stack";

/**
 * The demo user of emulator/demo-workspace.json, with the token the workspace issued to
 * Statuspilot's app for them. Their own token (`xoxp-demo-U001`) is for playing the user.
 */
export const DEMO_USER = {
  team: "T0DEMO",
  user: "U001",
  token: "xoxp-statuspilot-U001",
  tz: "Europe/Berlin",
};
export const DEMO_FEED_PATH = "/demo/u001.ics";

/**
 * The demo user's rules: a status of their own for lunch, ranked above meetings, so the demo's
 * lunch (demo-feed.ts) shows it within 3 minutes of the start.
 */
export const DEMO_RULES = {
  custom: [
    {
      name: "Lunch",
      text: "At lunch",
      emoji: ":fork_and_knife:",
      priority: 15,
      keywords: ["lunch"],
    },
  ],
};

export interface Demo {
  ics: IcsServer;
  users: LocalUserConfig[];
  events: DemoEvent[];
  close(): Promise<void>;
}

/** Serves U001's demo calendar on loopback, its events placed relative to now. */
export async function startDemo(clock: Clock): Promise<Demo> {
  const now = clock.now();
  const events = demoEvents(now, DEMO_USER.tz);
  const ics = await startIcsServer({ clock, feeds: { [DEMO_FEED_PATH]: renderIcs(events, now) } });
  return {
    events,
    ics,
    users: [{ ...DEMO_USER, calendars: [ics.feedUrl(DEMO_FEED_PATH)], rules: DEMO_RULES }],
    close: () => ics.close(),
  };
}
