import type { StatusView, UserView } from "#lib/app/contracts";
import type { NotifyParts } from "#lib/app/notify/parts";
import type { UserMode } from "#lib/core/records";
import type { StatusValue, UserKey } from "#lib/core/types";
import type { WebhookReply, WebhookRequest } from "#lib/http/request";
import { header } from "#lib/http/signature";
import type { WebhookDeps } from "./deps";
import { NOT_SET_UP } from "./handle-ooo-command";
import { ephemeral, localMinute, readSlashCommand } from "./slash-command";

export const STATUSPILOT_HELP = [
  "`/statuspilot status`: what Statuspilot shows now, the next change, your calendars and connection",
  "`/statuspilot pause`: stop changing your status (what shows now stays until it ends)",
  "`/statuspilot resume`: start again from your calendars",
  "`/statuspilot sync`: read every calendar now (once a minute at most)",
  "`/statuspilot settings`: a link to your settings page",
  "`/statuspilot help`: this list",
].join("\n");

/** What `/statuspilot` reads and changes: our own table only, never the service. */
export interface StatuspilotCommandDeps
  extends Pick<WebhookDeps, "clock" | "log" | "signingSecret"> {
  config: { PUBLIC_BASE_URL?: string | undefined };
  admin: {
    getUser(key: UserKey): Promise<UserView | undefined>;
    getStatusView(key: UserKey): Promise<StatusView | undefined>;
  };
  /** Stores the mode at once and queues the reconcile (lib/app/people/slash-commands.ts). */
  chatCommands?: { setMode(key: UserKey, mode: UserMode): Promise<UserMode> };
  /** Sync now (lib/app/notify/sync-now.ts): the reads queued at once, guarded per person. */
  notify?: Pick<NotifyParts, "syncNow">;
}

/**
 * POST /service/commands/statuspilot: the `/statuspilot` slash command, signed like `/ooo` and
 * answered the same way: ephemerally, from our own table, within the service's 3 s whatever
 * its latency. Pause and resume store the mode at once; a resume's status follows from the
 * queue (paused, nothing is written: what shows stays until it expires or the user changes it).
 */
export async function handleStatuspilotCommand(
  req: WebhookRequest,
  deps: StatuspilotCommandDeps,
): Promise<WebhookReply> {
  const cmd = await readSlashCommand(req, deps, "/statuspilot");
  const key = { team: cmd.team_id, user: cmd.user_id };
  deps.log.appendKeys({ user: key.user });
  const settings = settingsUrl(deps.config.PUBLIC_BASE_URL, req);
  const word = cmd.text.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  if (word === "settings") return ephemeral(`Your settings: ${settings}`);
  if (word === "sync") return ephemeral(await syncWords(deps, key, settings));
  if (word !== "status" && word !== "pause" && word !== "resume") {
    return ephemeral(STATUSPILOT_HELP);
  }
  const user = await deps.admin.getUser(key);
  if (user === undefined) return ephemeral(`${NOT_SET_UP} Install it at ${settings}`);
  if (word === "status") {
    const view = await deps.admin.getStatusView(key);
    return ephemeral(describeStatus(user, view, settings, deps.clock.now()));
  }
  const setMode = deps.chatCommands?.setMode;
  if (setMode === undefined) throw new Error("the app has no chat commands");
  const mode: UserMode = word === "pause" ? "paused" : "auto";
  const before = await setMode(key, mode);
  if (mode === "paused") {
    return ephemeral(
      before === "paused" ? "Already paused." : "Paused. `/statuspilot resume` to start again.",
    );
  }
  return ephemeral(
    before === "auto" ? "Already running." : "Resumed: your status follows your calendars again.",
  );
}

/** `/statuspilot sync`: every calendar queued for a read now, unless read less than a minute ago. */
async function syncWords(
  deps: StatuspilotCommandDeps,
  key: UserKey,
  settings: string,
): Promise<string> {
  const outcome = await deps.notify?.syncNow(key);
  switch (outcome?.kind) {
    case "queued":
      return `Reading your ${outcome.calendars === 1 ? "calendar" : `${outcome.calendars} calendars`} now: your status follows in seconds.`;
    case "recent":
      return "Your calendars were read less than a minute ago: nothing was read again.";
    case "no_calendars":
      return `You have no calendar yet: add one at ${settings}`;
    default:
      return `${NOT_SET_UP} Install it at ${settings}`;
  }
}

/** The settings page: under the configured public address, else the address this was sent to. */
function settingsUrl(publicBase: string | undefined, req: WebhookRequest): string {
  if (publicBase !== undefined) return `${publicBase.replace(/\/+$/, "")}/settings`;
  const host =
    header(req.headers, "x-forwarded-host") ?? header(req.headers, "host") ?? "localhost";
  // API Gateway always says https; a request without the header came straight (a local stack).
  const proto = header(req.headers, "x-forwarded-proto") ?? "http";
  return `${proto}://${host}/settings`;
}

const shown = (s: StatusValue): string =>
  s.text === "" && s.emoji === "" ? "nothing" : `${s.emoji} "${s.text}"`.trim();

function at(ms: number, zone: string): string {
  return `${localMinute(ms, zone)} (${zone})`;
}

/** `/statuspilot status`: mode, connection, what shows now and next, and each calendar. */
export function describeStatus(
  user: UserView,
  view: StatusView | undefined,
  settings: string,
  now: number,
): string {
  const zone = user.tz;
  const stop = view?.needsReauth ?? user.needsReauth;
  const lines = [
    user.mode === "paused"
      ? "Mode: paused (`/statuspilot resume` to start again)"
      : "Mode: automatic, from your calendars",
    `Connection: ${connection(stop, settings, zone)}`,
  ];
  if (view !== undefined) {
    lines.push(`Now: ${shown(view.actual.status)}`);
    if (view.desired !== undefined && view.desired.end > now) {
      lines.push(`Calendar says: ${shown(view.desired)} until ${at(view.desired.end, zone)}`);
    }
    if (stop === undefined && user.mode === "auto" && view.nextTransitionAt !== undefined) {
      lines.push(`Next change: ${at(view.nextTransitionAt, zone)}`);
    }
  }
  lines.push(
    user.sources.length === 0
      ? `Calendars: none yet (add one at ${settings})`
      : `Calendars:\n${user.sources
          .map(
            (s) =>
              `• ${s.id} (${s.kind}): ${s.syncedAt === undefined ? "not read yet" : `read ${at(s.syncedAt, zone)}`}`,
          )
          .join("\n")}`,
  );
  return lines.join("\n");
}

function connection(
  stop: { code: string; deleteAt?: number } | undefined,
  settings: string,
  zone: string,
): string {
  if (stop === undefined) return "connected";
  if (stop.code === "app_uninstalled") {
    const when =
      stop.deleteAt === undefined
        ? ""
        : ` Your data is deleted on ${at(stop.deleteAt, zone)} unless it is reinstalled.`;
    return `the app was removed from this workspace — reinstall at ${settings}.${when}`;
  }
  if (stop.code === "token_revoked") return `token revoked — reconnect at ${settings}`;
  return `stopped (${stop.code}) — reconnect at ${settings}`;
}
