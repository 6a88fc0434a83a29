import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { ManualClock } from "#lib/core/clock";
import { renderIcs } from "#lib/local/demo-feed";
import { type IcsServer, startIcsServer } from "#lib/local/ics-server";

/** What a restarted local stack keeps and reads: its state directory and a calendar feed. */
export interface KeptState {
  readonly stateDir: string;
  /** The feed's URL on the running ICS server. */
  feedUrl(): string;
}

/**
 * A fresh state directory and an empty feed at `feed`, made before the describe's tests and
 * removed after them; read its fields only inside tests.
 */
export function keptStateAndFeed(
  clock: ManualClock,
  feed: string,
  dirPrefix = "statuspilot-state-",
): KeptState {
  let stateDir: string | undefined;
  let ics: IcsServer | undefined;
  beforeAll(async () => {
    stateDir = mkdtempSync(path.join(tmpdir(), dirPrefix));
    ics = await startIcsServer({ clock, feeds: { [feed]: renderIcs([], clock.now()) } });
  });
  afterAll(async () => {
    await ics?.close();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });
  return {
    get stateDir() {
      if (stateDir === undefined) throw new Error("the state directory is read before beforeAll");
      return stateDir;
    },
    feedUrl: () => {
      if (!ics) throw new Error("the feed is read before beforeAll");
      return ics.feedUrl(feed);
    },
  };
}
