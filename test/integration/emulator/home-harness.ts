import { type RunningEmulator, startEmulator } from "#emulator/server";
import type { TierLimits } from "#emulator/tiers";
import { ManualClock } from "#lib/core/clock";
import { appOf, conformanceWorkspace, startReceiver } from "../service/harness";

// The App Home, DM and DND extensions over real HTTP: the conformance workspace with A0MAIN as
// an app with a Home tab, interactivity, a bot token, and DND-scoped tokens of one person.

export const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
export const T0S = T0 / 1000;
export const SECRET = "conformance-signing-secret";
export const APP = "A0MAIN";
export const PERSON = "U0MEMBER";
/** A0MAIN's bot token, with the documented bot scopes. */
export const BOT = "xoxb-main-home-0001";
/** A0MAIN's bot token without `chat:write`. */
export const BOT_UNSCOPED = "xoxb-main-home-0002";
/** A0MAIN's bot token with `dnd:read` (bots may read DND). */
export const BOT_DND_READ = "xoxb-main-home-0003";
/** The person's token issued to A0MAIN, with both DND scopes. */
export const APP_DND = "xoxp-main-dnd-0001";
/** The person's own token (their chat client), with both DND scopes. */
export const OWN_DND = "xoxp-own-dnd-0001";
/** Another person's token with `dnd:read` only. */
export const OTHER_READ = "xoxp-other-dndread-0001";

export interface HomeSetup {
  clock: ManualClock;
  emu: RunningEmulator;
  events: Awaited<ReturnType<typeof startReceiver>>;
  interactive: Awaited<ReturnType<typeof startReceiver>>;
}

const running: { close(): Promise<void> }[] = [];

export async function closeAll(): Promise<void> {
  await Promise.all(running.splice(0).map((r) => r.close()));
}

export async function startHome(
  opts: {
    homeTab?: boolean;
    interactivity?: boolean;
    eventAnswer?: (n: number) => number;
    interactiveUrl?: string;
    tierLimits?: Partial<TierLimits>;
    interactionTimeoutMs?: number;
  } = {},
): Promise<HomeSetup> {
  const clock = new ManualClock(T0);
  const events = await startReceiver(opts.eventAnswer);
  const interactive = await startReceiver();
  running.push(events, interactive);
  const workspace = conformanceWorkspace((ws) => {
    const main = appOf(ws, APP);
    main.manifest = {
      display_information: { name: "Statuspilot" },
      features: {
        bot_user: { display_name: "statuspilot" },
        app_home: { home_tab_enabled: opts.homeTab ?? true, messages_tab_enabled: true },
      },
      oauth_config: { scopes: { bot: ["chat:write", "commands"], user: ["dnd:read"] } },
      settings: {
        event_subscriptions: { request_url: events.url, bot_events: ["app_home_opened"] },
        interactivity: {
          is_enabled: opts.interactivity ?? true,
          request_url: opts.interactiveUrl ?? interactive.url,
        },
      },
    };
    const token = (t: string, type: "bot" | "user", user: string, scopes: string[], app?: string) =>
      ws.tokens.push({ token: t, type, user, scopes, state: "active", ...(app ? { app } : {}) });
    token(BOT, "bot", "U0BOT", ["chat:write", "commands"], APP);
    token(BOT_UNSCOPED, "bot", "U0BOT", ["commands"], APP);
    token(BOT_DND_READ, "bot", "U0BOT", ["dnd:read"], APP);
    token(APP_DND, "user", PERSON, ["dnd:read", "dnd:write"], APP);
    token(OWN_DND, "user", PERSON, ["dnd:read", "dnd:write"]);
    token(OTHER_READ, "user", "U0MEMBER2", ["dnd:read"]);
  });
  const emu = await startEmulator({
    workspace,
    clock,
    expirySweepMs: 0,
    eventRetryDelaysMs: [0, 10, 20],
    ...(opts.tierLimits ? { tierLimits: opts.tierLimits } : {}),
    ...(opts.interactionTimeoutMs ? { interactionTimeoutMs: opts.interactionTimeoutMs } : {}),
  });
  running.push(emu);
  return { clock, emu, events, interactive };
}

export type Json = Record<string, unknown>;

export interface Answer {
  status: number;
  retryAfter: string | null;
  body: Json;
}

/** Calls a method with a JSON body (objects as objects) or a form (objects as JSON text). */
export async function call(
  emu: RunningEmulator,
  method: string,
  args: Json,
  token?: string,
  encoding: "json" | "form" = "json",
): Promise<Answer> {
  const headers: Record<string, string> = {
    "content-type": encoding === "json" ? "application/json" : "application/x-www-form-urlencoded",
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  };
  const form = () =>
    new URLSearchParams(
      Object.entries(args).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
    ).toString();
  const res = await fetch(`${emu.apiBase}/${method}`, {
    method: "POST",
    headers,
    body: encoding === "json" ? JSON.stringify(args) : form(),
  });
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    body: (await res.json()) as Json,
  };
}

/** POSTs JSON to a control endpoint. */
export async function control(emu: RunningEmulator, path: string, body: Json): Promise<Answer> {
  const res = await fetch(`${emu.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, retryAfter: null, body: (await res.json()) as Json };
}

export async function state(emu: RunningEmulator): Promise<Json> {
  return (await (await fetch(`${emu.url}/_emulator/state`)).json()) as Json;
}

export const section = (text: string, extra: Json = {}): Json => ({
  type: "section",
  text: { type: "mrkdwn", text },
  ...extra,
});

export const button = (actionId: string, value?: string, extra: Json = {}): Json => ({
  type: "button",
  text: { type: "plain_text", text: actionId },
  action_id: actionId,
  ...(value === undefined ? {} : { value }),
  ...extra,
});

export const actions = (buttons: Json[], extra: Json = {}): Json => ({
  type: "actions",
  elements: buttons,
  ...extra,
});

export const home = (blocks: Json[], extra: Json = {}): Json => ({
  type: "home",
  blocks,
  ...extra,
});
