import { createHmac } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadWorkspace } from "#emulator/server";
import type { Workspace } from "#emulator/workspace";
import { systemClock } from "#lib/app/compose/system-clock";
import { ManualClock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";
import { type DemoEvent, renderIcs } from "#lib/local/demo-feed";
import { startIcsServer } from "#lib/local/ics-server";
import { formatLiveEvent, type LiveEvent } from "#lib/local/live-log";
import { startStack } from "#lib/local/stack";

const repoRoot = path.resolve(fileURLToPath(import.meta.url), "../../..");
export const TEAM = "T0DEMO";
/** Statuspilot's app in the demo workspace; the tokens it holds were issued to it. */
export const STATUSPILOT_APP = "A0STATUSPILOT";

/** Whole seconds plus 400 ms, so the stack's tick is not aligned with calendar seconds. */
export const T0 = Date.parse("2025-03-10T10:59:00.400Z");

/**
 * A running local stack, as a test outside the process would know it: its addresses and admin
 * key (what `statuspilot start` prints). Everything after start goes over HTTP.
 */
export interface E2e {
  /** The handlers' base URL, where API Gateway would be; `/_local/...` is its control surface. */
  url: string;
  /** The emulator's own base (`/_emulator/...`). */
  emulatorUrl: string;
  /** The service API base the handlers call. */
  serviceBase: string;
  adminApiKey: string;
  /** Where a newcomer installs Statuspilot (`<url>/install`), as `statuspilot start` prints it. */
  installUrl: string;
  /** The loopback ICS feed of a user. */
  feedUrl(user: string): string;
  close(): Promise<void>;
}

/**
 * The local stack on random ports with a loopback ICS server: on a hand-moved clock from T0, or
 * (`realTime`) on the system clock as `statuspilot start` runs it, events placed relative to now.
 * Each feed's user is registered at start, unless `installed: false` (they install it themselves
 * through `/install`); `stateDir` keeps the stack's state there, as `statuspilot start` does.
 */
export async function startE2e(
  feeds: Record<string, { tz: string; events: DemoEvent[]; rules?: Record<string, unknown> }>,
  opts: {
    realTime?: boolean;
    installed?: boolean;
    stateDir?: string;
    /** Users the demo workspace gets besides its own, each with a token issued to Statuspilot. */
    moreUsers?: string[];
    /** Where the handlers' log records go (the stack's own diagnostics stay silent). */
    appLog?: Log;
  } = {},
): Promise<E2e> {
  const clock = opts.realTime ? undefined : new ManualClock(T0);
  const origin = clock?.now() ?? systemClock.now();
  const ics = await startIcsServer({
    clock: clock ?? systemClock,
    feeds: Object.fromEntries(
      Object.entries(feeds).map(([u, f]) => [`/${u}.ics`, renderIcs(f.events, origin)]),
    ),
  });
  const workspace = withUsers(
    loadWorkspace(path.join(repoRoot, "emulator/demo-workspace.json")),
    opts.moreUsers ?? [],
  );
  const stack = await startStack({
    workspace,
    users: Object.entries(opts.installed === false ? {} : feeds).map(([user, f]) => ({
      team: TEAM,
      user,
      // The token the user gave Statuspilot by installing it, not their own (`xoxp-demo-…`).
      token: `xoxp-statuspilot-${user}`,
      tz: f.tz,
      calendars: [ics.feedUrl(`/${user}.ics`)],
      ...(f.rules !== undefined ? { rules: f.rules } : {}),
    })),
    port: 0,
    emulatorPort: 0,
    time: clock === undefined ? { mode: "real" } : { mode: "manual", clock },
    ...(opts.stateDir !== undefined ? { stateDir: opts.stateDir } : {}),
    ...(opts.appLog !== undefined ? { appLog: opts.appLog } : {}),
  });
  return {
    url: stack.url,
    emulatorUrl: stack.emulator?.url ?? "",
    serviceBase: stack.serviceBase,
    adminApiKey: stack.adminApiKey,
    installUrl: stack.installUrl ?? "",
    feedUrl: (user) => ics.feedUrl(`/${user}.ics`),
    close: async () => {
      await stack.close();
      await ics.close();
    },
  };
}

/** The workspace with `users` added: members in its zone, each holding a Statuspilot token. */
function withUsers(workspace: Workspace, users: string[]): Workspace {
  return {
    ...workspace,
    users: [
      ...workspace.users,
      ...users.map((id) => ({
        id,
        name: id.toLowerCase(),
        role: "member" as const,
        tz: "Europe/Berlin",
        profile: { real_name: `User ${id}`, email: `${id.toLowerCase()}@demo.example` },
      })),
    ],
    tokens: [
      ...workspace.tokens,
      ...users.map((user) => ({
        token: `xoxp-statuspilot-${user}`,
        type: "user" as const,
        user,
        scopes: ["users.profile:write", "users.profile:read"],
        state: "active" as const,
        app: STATUSPILOT_APP,
      })),
    ],
  };
}

const getJson = async (url: string): Promise<unknown> => {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
  return res.json();
};

const postJson = async (url: string, body: unknown): Promise<unknown> => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${await res.text()}`);
  return res.json();
};

/** The stack's clock (epoch ms), over HTTP. */
export async function nowOf(e: E2e): Promise<number> {
  const { now } = (await getJson(`${e.url}/_local/clock`)) as { now: number };
  return now;
}

/** Moves the stack's manual clock to `epochMs`, running everything due on the way. */
export async function advanceTo(e: E2e, epochMs: number): Promise<void> {
  await postJson(`${e.url}/_local/clock`, { to: epochMs });
}

/** Moves the stack's manual clock forward by `ms`. */
export async function advance(e: E2e, ms: number): Promise<void> {
  await postJson(`${e.url}/_local/clock`, { advanceMs: ms });
}

/** Waits until no request, event delivery or queue message is in progress. */
export async function settle(e: E2e): Promise<void> {
  await postJson(`${e.url}/_local/settle`, {});
}

/** The live log `statuspilot start` would print, with times in UTC, over HTTP. */
export async function liveLog(e: E2e): Promise<string[]> {
  const { events } = (await getJson(`${e.url}/_local/live`)) as { events: LiveEvent[] };
  return events.map((event) => formatLiveEvent(event, { timeZone: "UTC" }));
}

interface Hook {
  user: string;
  sourceId: string;
  channelId: string;
  secret: string;
  url: string;
}

/** The generic push hook of a user's source, as the stack lists it over HTTP. */
export async function hookOf(e: Pick<E2e, "url">, user: string, sourceId = "cal1"): Promise<Hook> {
  const { hooks } = (await getJson(`${e.url}/_local/hooks`)) as { hooks: Hook[] };
  const hook = hooks.find((h) => h.user === user && h.sourceId === sourceId);
  if (!hook) throw new Error(`no hook for ${user}/${sourceId}`);
  return hook;
}

export interface Profile {
  status_text: string;
  status_emoji: string;
  status_expiration: number;
}

/** The user's profile as the emulator holds it, over HTTP. */
export async function profileOf(e: E2e, user: string): Promise<Profile> {
  const state = (await getJson(`${e.emulatorUrl}/_emulator/state`)) as {
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
  /** The app the call's token was issued to; null for the user's own token. */
  app: string | null;
  outcome: string;
  /** The request's parameters, tokens redacted. */
  params: Record<string, unknown> | null;
}

/** Every users.profile.set the emulator received for `user`, over HTTP. */
export async function setCalls(e: E2e, user: string): Promise<Call[]> {
  const { calls } = (await getJson(`${e.emulatorUrl}/_emulator/calls`)) as {
    calls: Call[];
  };
  return calls.filter(
    (c) => c.method === "users.profile.set" && (c.user === user || c.caller === user),
  );
}

/** The `profile` Statuspilot sent in each of its users.profile.set calls for `user`, over HTTP. */
export async function statuspilotProfileSets(
  e: E2e,
  user: string,
): Promise<Array<Record<string, unknown>>> {
  const { calls } = (await getJson(`${e.emulatorUrl}/_emulator/calls`)) as { calls: Call[] };
  return calls
    .filter((c) => c.method === "users.profile.set" && c.user === user)
    .filter((c) => c.app === STATUSPILOT_APP)
    .map((c) => {
      const profile = c.params?.profile;
      // A form-encoded call carries the profile as JSON text.
      return (typeof profile === "string" ? JSON.parse(profile) : profile) as Record<
        string,
        unknown
      >;
    });
}

/** The user changing their own status with their own token, as the chat client would. */
export async function userSetsStatus(
  e: E2e,
  user: string,
  profile: Partial<Profile>,
): Promise<void> {
  const res = await fetch(`${e.serviceBase}/users.profile.set`, {
    method: "POST",
    headers: {
      authorization: `Bearer xoxp-demo-${user}`,
      "content-type": "application/json; charset=utf-8",
    },
    body: JSON.stringify({ profile }),
  });
  const body = (await res.json()) as { ok: boolean; error?: string };
  if (!body.ok) throw new Error(`users.profile.set failed: ${body.error}`);
  await settle(e);
}

/** Replaces the user's feed on the ICS server and pushes the generic hook, both over HTTP. */
export async function publishAndPush(
  e: E2e,
  user: string,
  tz: string,
  events: DemoEvent[],
): Promise<number> {
  const now = await nowOf(e);
  const put = await fetch(e.feedUrl(user), { method: "PUT", body: renderIcs(events, now) });
  if (put.status !== 204) throw new Error(`feed PUT answered ${put.status}`);
  await pushHook(e, user, tz, now);
  await settle(e);
  return now;
}

/** Signs and sends a push of the user's generic hook at `now` (the stack's clock). */
export async function pushHook(
  e: Pick<E2e, "url">,
  user: string,
  tz: string,
  now: number,
): Promise<void> {
  const hook = await hookOf(e, user);
  const body = JSON.stringify({ changed: hook.sourceId, tz });
  const ts = Math.floor(now / 1000);
  const signature = `v0=${createHmac("sha256", hook.secret).update(`v0:${ts}:${body}`).digest("hex")}`;
  const res = await fetch(hook.url, {
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
}

export const event = (uid: string, summary: string, start: number, end: number): DemoEvent => ({
  uid: `${uid}@e2e.statuspilot.local`,
  summary,
  start,
  end,
  busyStatus: "BUSY",
});

/** The service's `tokens_revoked` event for `user`'s token, as its Events API wraps it. */
export const tokensRevokedEnvelope = (user: string, eventId: string, atMs: number) => ({
  token: "unused",
  team_id: TEAM,
  api_app_id: STATUSPILOT_APP,
  type: "event_callback",
  event_id: eventId,
  event_time: Math.floor(atMs / 1000),
  event: { type: "tokens_revoked", tokens: { oauth: [user], bot: [] } },
});
