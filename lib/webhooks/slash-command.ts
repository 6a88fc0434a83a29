import * as z from "zod";
import type { Clock } from "#lib/core/clock";
import { workspaceIdSchema } from "#lib/core/ids";
import { jsonReply, parseInput, type WebhookReply, type WebhookRequest } from "#lib/http/request";
import { verifyServiceRequest } from "./signed";

/** What every slash command shares: the signed form POST and its ephemeral answer. */

/** A slash command's form fields, as the service posts them. */
export interface SlashCommand {
  team_id: string;
  user_id: string;
  command: string;
  text: string;
}

const slashCommandSchemaFor = (command: string) =>
  z
    .object({
      team_id: workspaceIdSchema,
      user_id: workspaceIdSchema,
      command: z.literal(command),
      text: z.string().default(""),
    })
    .loose();

/**
 * Checks the request's v0 signature (a bad or stale one throws, as for events), then reads the
 * form body as `command`'s fields. A form for another command is refused as bad input.
 */
export async function readSlashCommand(
  req: WebhookRequest,
  deps: { signingSecret(): Promise<string>; clock: Clock },
  command: string,
): Promise<SlashCommand> {
  await verifyServiceRequest(req, deps);
  return parseInput(
    slashCommandSchemaFor(command),
    Object.fromEntries(new URLSearchParams(req.rawBody)),
  );
}

/**
 * Message text as the platform reads it: `&`, `<` and `>` are its control characters
 * (`<!channel>`, `<https://x|label>`, `<@U…>`), so text a user typed or a calendar holds would
 * mention a channel or hide a link. The platform's formatting guide: turn those three, and only
 * those, into `&amp;`, `&lt;` and `&gt;`. `&` goes first, so nothing is escaped twice.
 */
const escapeMessageText = (text: string): string =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/**
 * Slash-command answers are shown only to the user who typed the command. Ours use no control
 * sequence of their own, so the whole answer is escaped once, here, whatever it echoes (event
 * titles, `/ooo` input, source ids).
 */
/** An instant as the zone's wall clock to the minute, `2026-01-02 09:00`: how replies show times. */
export function localMinute(ms: number, zone: string): string {
  return new Intl.DateTimeFormat("sv-SE", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(new Date(ms));
}

export const ephemeral = (message: string): WebhookReply =>
  jsonReply(200, { response_type: "ephemeral", text: escapeMessageText(message) });
