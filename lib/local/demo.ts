import type { Clock } from "../core/clock";
import { demoEvents, renderIcs } from "./demo-feed";
import { type IcsServer, startIcsServer } from "./ics-server";
import type { LocalUserConfig } from "./stack";

/** The demo user of emulator/demo-workspace.json. */
export const DEMO_USER = {
  team: "T0DEMO",
  user: "U001",
  token: "xoxp-demo-U001",
  tz: "Europe/Berlin",
};
export const DEMO_FEED_PATH = "/demo/u001.ics";

export interface Demo {
  ics: IcsServer;
  users: LocalUserConfig[];
  close(): Promise<void>;
}

/** Serves U001's demo calendar on loopback, its events placed relative to now. */
export async function startDemo(clock: Clock): Promise<Demo> {
  const now = clock.now();
  const ics = await startIcsServer({
    clock,
    feeds: { [DEMO_FEED_PATH]: renderIcs(demoEvents(now, DEMO_USER.tz), now) },
  });
  return {
    ics,
    users: [{ ...DEMO_USER, calendars: [ics.feedUrl(DEMO_FEED_PATH)] }],
    close: () => ics.close(),
  };
}
