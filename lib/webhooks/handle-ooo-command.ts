import type { OutOfOfficeEntry } from "#lib/app/contracts";
import { AppError } from "#lib/app/errors";
import type { WebhookReply, WebhookRequest } from "#lib/http/request";
import type { WebhookDeps } from "./deps";
import { OooCommandError, parseOooCommand } from "./ooo-command";
import { ephemeral, localMinute, readSlashCommand } from "./slash-command";

export const NOT_SET_UP = "You're not set up with Statuspilot yet.";

/** One line per entry, in the user's zone: `id: 2026-01-02 09:00 → 2026-01-05 00:00 "text"`. */
export function formatEntry(entry: OutOfOfficeEntry, zone: string): string {
  const at = (ms: number) => localMinute(ms, zone);
  return `${entry.id}: ${at(entry.start)} → ${at(entry.end)} ${entry.emoji} "${entry.text}"`;
}

/** What the command needs: the out-of-office use cases as `oooCommands` runs them. */
export interface OooCommandDeps extends Pick<WebhookDeps, "clock" | "log" | "signingSecret"> {
  admin: Pick<WebhookDeps["admin"], "userZone">;
  /**
   * Scheduling, listing and cancelling out-of-office, storing at once but queueing the status
   * update (lib/app/people/slash-commands.ts): the reply must never wait on the service.
   */
  oooCommands: Pick<
    WebhookDeps["useCases"],
    "scheduleOutOfOffice" | "listOutOfOffice" | "cancelOutOfOffice"
  >;
}

/**
 * POST /service/commands/ooo: the `/ooo` slash command, a signed form POST. Every answer the
 * user can act on (bad dates, a period already over, not being set up) is an ephemeral 200.
 *
 * The service gives a command 3 s to be answered, and its spec has no `response_url` to answer
 * later. So the reply says what was stored (reads and writes of our own table only), and the
 * profile follows from the transition queue a moment later, however slow the service is.
 */
export async function handleOooCommand(
  req: WebhookRequest,
  deps: OooCommandDeps,
): Promise<WebhookReply> {
  const cmd = await readSlashCommand(req, deps, "/ooo");
  const key = { team: cmd.team_id, user: cmd.user_id };
  deps.log.appendKeys({ user: key.user });
  const zone = await deps.admin.userZone(key);
  if (zone === undefined) return ephemeral(NOT_SET_UP);
  try {
    const parsed = parseOooCommand(cmd.text, { now: deps.clock.now(), zone });
    if (parsed.kind === "list") {
      const entries = await deps.oooCommands.listOutOfOffice(key);
      return ephemeral(
        entries.length
          ? entries.map((e) => formatEntry(e, zone)).join("\n")
          : "No out-of-office scheduled.",
      );
    }
    if (parsed.kind === "cancel") {
      const done = await deps.oooCommands.cancelOutOfOffice(key, parsed.id);
      return ephemeral(done ? `Cancelled ${parsed.id}.` : `No out-of-office with id ${parsed.id}.`);
    }
    const entry = await deps.oooCommands.scheduleOutOfOffice(key, parsed.input);
    return ephemeral(`Scheduled ${formatEntry(entry, zone)}`);
  } catch (error: unknown) {
    if (error instanceof OooCommandError) return ephemeral(error.message);
    if (error instanceof AppError) {
      return ephemeral(error.code === "unknown_user" ? NOT_SET_UP : error.message);
    }
    throw error;
  }
}
