import { createHmac } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadWorkspace } from "../../emulator/server";
import { ManualClock } from "../../lib/core/clock";
import { type DemoEvent, renderIcs } from "../../lib/local/demo-feed";
import { type IcsServer, startIcsServer } from "../../lib/local/ics-server";
import { formatLiveEvent } from "../../lib/local/live-log";
import { type LocalStack, startStack } from "../../lib/local/stack";

const repoRoot = path.resolve(fileURLToPath(import.meta.url), "../../..");
export const TEAM = "T0DEMO";

/** Whole seconds plus 400 ms, so the stack's tick is not aligned with calendar seconds. */
export const T0 = Date.parse("2025-03-10T10:59:00.400Z");

export interface E2e {
  stack: LocalStack;
  ics: IcsServer;
  clock: ManualClock;
  /** The live log `statuspilot start` would print, with times in UTC. */
  liveLog: string[];
  close(): Promise<void>;
}

/** The local stack on random ports with a hand-moved clock, and a loopback ICS server. */
export async function startE2e(
  feeds: Record<string, { tz: string; events: DemoEvent[] }>,
): Promise<E2e> {
  const clock = new ManualClock(T0);
  const ics = await startIcsServer({
    clock,
    feeds: Object.fromEntries(
      Object.entries(feeds).map(([u, f]) => [`/${u}.ics`, renderIcs(f.events, T0)]),
    ),
  });
  const liveLog: string[] = [];
  const workspace = loadWorkspace(path.join(repoRoot, "emulator/demo-workspace.json"));
  const stack = await startStack({
    workspace,
    users: Object.entries(feeds).map(([user, f]) => ({
      team: TEAM,
      user,
      token: `xoxp-demo-${user}`,
      tz: f.tz,
      calendars: [ics.feedUrl(`/${user}.ics`)],
    })),
    port: 0,
    emulatorPort: 0,
    time: { mode: "manual", clock },
    onLive: (event) => liveLog.push(formatLiveEvent(event, { timeZone: "UTC" })),
  });
  return {
    stack,
    ics,
    clock,
    liveLog,
    close: async () => {
      await stack.close();
      await ics.close();
    },
  };
}

const getJson = async (url: string): Promise<unknown> => {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
  return res.json();
};

export interface Profile {
  status_text: string;
  status_emoji: string;
  status_expiration: number;
}

/** The user's profile as the emulator holds it, over HTTP. */
export async function profileOf(e: E2e, user: string): Promise<Profile> {
  const state = (await getJson(`${e.stack.emulator?.url}/_emulator/state`)) as {
    profiles: Record<string, Profile>;
  };
  const profile = state.profiles[user];
  if (!profile) throw new Error(`no profile for ${user}`);
  return profile;
}

export interface Call {
  seq: number;
  at: number;
  method: string;
  user: string | null;
  caller: string | null;
  outcome: string;
}

/** Every users.profile.set the emulator received for `user`, over HTTP. */
export async function setCalls(e: E2e, user: string): Promise<Call[]> {
  const { calls } = (await getJson(`${e.stack.emulator?.url}/_emulator/calls`)) as {
    calls: Call[];
  };
  return calls.filter(
    (c) => c.method === "users.profile.set" && (c.user === user || c.caller === user),
  );
}

/** The user changing their own status with their own token, as the chat client would. */
export async function userSetsStatus(
  e: E2e,
  user: string,
  profile: Partial<Profile>,
): Promise<void> {
  const res = await fetch(`${e.stack.serviceBase}/users.profile.set`, {
    method: "POST",
    headers: {
      authorization: `Bearer xoxp-demo-${user}`,
      "content-type": "application/json; charset=utf-8",
    },
    body: JSON.stringify({ profile }),
  });
  const body = (await res.json()) as { ok: boolean; error?: string };
  if (!body.ok) throw new Error(`users.profile.set failed: ${body.error}`);
  await e.stack.settle();
}

/** Replaces the user's feed on the ICS server and pushes the generic hook, both over HTTP. */
export async function publishAndPush(
  e: E2e,
  user: string,
  tz: string,
  events: DemoEvent[],
): Promise<number> {
  const put = await fetch(e.ics.feedUrl(`/${user}.ics`), {
    method: "PUT",
    body: renderIcs(events, e.clock.now()),
  });
  if (put.status !== 204) throw new Error(`feed PUT answered ${put.status}`);
  const hook = e.stack.hooks.get(`${user}/cal1`);
  if (!hook) throw new Error(`no hook for ${user}`);
  const body = JSON.stringify({ changed: "cal1", tz });
  const ts = Math.floor(e.clock.now() / 1000);
  const signature = `v0=${createHmac("sha256", hook.secret).update(`v0:${ts}:${body}`).digest("hex")}`;
  const res = await fetch(`${e.stack.url}/hooks/generic/${hook.channelId}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-statuspilot-timestamp": String(ts),
      "x-statuspilot-signature": signature,
    },
    body,
  });
  if (res.status !== 200)
    throw new Error(`generic hook answered ${res.status}: ${await res.text()}`);
  await e.stack.settle();
  return e.clock.now();
}

export const event = (uid: string, summary: string, start: number, end: number): DemoEvent => ({
  uid: `${uid}@e2e.statuspilot.local`,
  summary,
  start,
  end,
  busyStatus: "BUSY",
});
