import type { HomeView, ViewBlock } from "#lib/core/notifier";
import type { SourceKind } from "#lib/core/records";
import type { CalendarHealthView } from "./calendar-health";
import type { HomeModel, InstalledHome, ShownStatus } from "./home-model";

/**
 * The Home tab in Block Kit, from its model: within the documented limits for a person with the
 * most calendars there may be (MAX_CALENDARS: about 30 of the 100 blocks; every text cut to its
 * limit). Text from outside (calendar names, statuses) is escaped, so it cannot mention anyone
 * or hide a link.
 */

/** The Home tab's buttons, as their clicks come back (`action_id`). */
export const HOME_ACTIONS = {
  pause: "pause",
  resume: "resume",
  syncNow: "sync_now",
  openSettings: "open_settings",
  reconnect: "reconnect",
  install: "install",
} as const;

/** Where the view's links go; a link that cannot be made (no public address) is left out. */
export interface HomeLinks {
  /** The install page (`/install`): "Add to", and Reconnect for the person's own token. */
  install?: string;
  /** The one-time link that signs the person in to their settings. */
  settings?: string;
  /** Where a calendar of this kind is connected again. */
  reconnect(kind: SourceKind): string | undefined;
}

/** The platform's three control characters, escaped: text from outside stays text. */
export const escapeText = (text: string): string =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

const cut = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

const mrkdwn = (text: string) => ({ type: "mrkdwn", text: cut(text, 3000) });

const section = (text: string, accessory?: ViewBlock): ViewBlock => ({
  type: "section",
  text: mrkdwn(text),
  ...(accessory !== undefined ? { accessory } : {}),
});

const context = (text: string): ViewBlock => ({ type: "context", elements: [mrkdwn(text)] });

export function button(
  actionId: string,
  label: string,
  opts: { url?: string; value?: string; style?: "primary" | "danger" } = {},
): ViewBlock {
  return {
    type: "button",
    action_id: actionId,
    text: { type: "plain_text", text: cut(label, 75) },
    ...(opts.url !== undefined ? { url: opts.url } : {}),
    ...(opts.value !== undefined ? { value: opts.value } : {}),
    ...(opts.style !== undefined ? { style: opts.style } : {}),
  };
}

/** `Mon 10 Mar, 14:30` in the person's zone (UTC for a zone the runtime does not know). */
export function when(at: number, tz: string): string {
  const options: Intl.DateTimeFormatOptions = {
    weekday: "short",
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  };
  try {
    return new Intl.DateTimeFormat("en-GB", { ...options, timeZone: tz }).format(at);
  } catch {
    return `${new Intl.DateTimeFormat("en-GB", { ...options, timeZone: "UTC" }).format(at)} UTC`;
  }
}

const shown = (s: ShownStatus): string =>
  escapeText(`${s.emoji} ${cut(s.text, 100)}`.trim()) || "no status";

const CONNECTION_WORDS = {
  connected: ":white_check_mark: *Connected*: Statuspilot can set your status.",
  revoked:
    ":warning: *Disconnected*: Statuspilot's access to your account was revoked, so your status is not being set.",
  expired:
    ":warning: *Disconnected*: Statuspilot's access to your account expired, so your status is not being set.",
} as const;

/** A calendar's lines: its name, its last good read and next read, and what is wrong. */
export function calendarLines(c: CalendarHealthView, tz: string, paused: boolean): string {
  const lines = [`*${escapeText(cut(c.name, 150))}*`];
  const last =
    c.lastGoodAt !== undefined ? `Last good read ${when(c.lastGoodAt, tz)}` : "Not read yet";
  const next = c.reconnect
    ? "not read until it is connected again"
    : paused
      ? "when you resume"
      : c.nextReadAt !== undefined
        ? `${c.pushed ? "changes arrive as they happen; checked " : ""}${when(c.nextReadAt, tz)}`
        : "not planned";
  lines.push(`${last} · Next read: ${next}`);
  if (c.reconnect)
    lines.push(":warning: Its account refused Statuspilot's access: connect it again.");
  if (c.error !== undefined) {
    lines.push(`:warning: Failing since ${when(c.error.since, tz)}: ${c.error.words}`);
  }
  return lines.join("\n");
}

function statusLines(home: InstalledHome): string {
  const now =
    home.current === undefined
      ? "Now: no status from your calendars"
      : `Now: ${shown(home.current)} until ${when(home.current.until, home.tz)}`;
  const next =
    home.next === undefined
      ? "Next change: none planned"
      : `Next change: ${when(home.next.at, home.tz)}, ${home.next.status === undefined ? "status cleared" : shown(home.next.status)}`;
  const mode = home.paused
    ? ":double_vertical_bar: *Paused*: Statuspilot leaves your status alone until you resume."
    : "*Automatic*: your status follows your calendars.";
  return [mode, now, next].join("\n");
}

function installedBlocks(home: InstalledHome, links: HomeLinks): ViewBlock[] {
  const { tz } = home;
  const reconnectOwn =
    home.connection !== "connected" && links.install !== undefined
      ? button(HOME_ACTIONS.reconnect, "Reconnect", { url: links.install, style: "primary" })
      : undefined;
  const buttons = [
    home.paused
      ? button(HOME_ACTIONS.resume, "Resume", { style: "primary" })
      : button(HOME_ACTIONS.pause, "Pause"),
    button(HOME_ACTIONS.syncNow, "Sync now"),
    ...(links.settings !== undefined
      ? [button(HOME_ACTIONS.openSettings, "Open settings", { url: links.settings })]
      : []),
  ];
  const blocks: ViewBlock[] = [
    { type: "header", text: { type: "plain_text", text: "Statuspilot" } },
    section(CONNECTION_WORDS[home.connection], reconnectOwn),
    section(statusLines(home)),
  ];
  blocks.push(
    context(
      home.dnd
        ? ":no_bell: Do Not Disturb: on, while this status shows."
        : ":bell: Do Not Disturb: off.",
    ),
  );
  blocks.push({ type: "actions", elements: buttons }, { type: "divider" });
  blocks.push(section(`*Calendars* (${home.calendars.length})`));
  if (home.calendars.length === 0)
    blocks.push(context("No calendar yet: add one in your settings."));
  for (const c of home.calendars) {
    const url = c.reconnect ? links.reconnect(c.kind) : undefined;
    const accessory =
      url !== undefined
        ? button(HOME_ACTIONS.reconnect, "Reconnect", { url, value: c.id })
        : undefined;
    blocks.push(section(calendarLines(c, tz, home.paused), accessory));
  }
  blocks.push(
    { type: "divider" },
    context(
      home.dmsOff
        ? "Messages when something breaks: off. Turn them on in your settings."
        : "Messages when something breaks: on. Turn them off in your settings.",
    ),
    context(`As of ${when(home.at, tz)} (${escapeText(tz)}). Times are in your zone.`),
  );
  return blocks;
}

function installBlocks(links: HomeLinks): ViewBlock[] {
  return [
    { type: "header", text: { type: "plain_text", text: "Statuspilot" } },
    section(
      "Statuspilot sets your status from your calendars: meetings, focus time and out-of-office, on time. It is not set up for you yet.",
      links.install !== undefined
        ? button(HOME_ACTIONS.install, "Add to your account", {
            url: links.install,
            style: "primary",
          })
        : undefined,
    ),
    ...(links.install === undefined ? [] : [context(`Or open ${links.install}`)]),
  ];
}

/** The Home view of `model`, its links filled in. */
export function renderHome(model: HomeModel, links: HomeLinks): HomeView {
  return { blocks: model.installed ? installedBlocks(model, links) : installBlocks(links) };
}
