import { z } from "zod";
import { header, OooCommandError, parseOooCommand, verifyV0 } from "../../lib/webhooks";
import { httpHandler, json, parseWith } from "../shared/http";
import { formatEntry } from "../shared/ooo";

const slashCommandSchema = z
  .object({
    team_id: z.string().min(1),
    user_id: z.string().min(1),
    command: z.literal("/ooo"),
    text: z.string().default(""),
  })
  .loose();

const reply = (message: string) => json(200, { response_type: "ephemeral", text: message });

/** POST /service/commands/ooo: the `/ooo` slash command, a signed form POST. */
export const handler = httpHandler(async (req, app) => {
  verifyV0(
    await app.signingSecret(),
    {
      rawBody: req.rawBody,
      timestamp: header(req.headers, "x-svc-request-timestamp"),
      signature: header(req.headers, "x-svc-signature"),
    },
    app.clock.now(),
  );
  const form = Object.fromEntries(new URLSearchParams(req.rawBody));
  const cmd = parseWith(slashCommandSchema, form);
  const key = { team: cmd.team_id, user: cmd.user_id };
  app.log.appendKeys({ user: key.user });
  const zone = (await app.admin.userZone(key)) ?? "UTC";
  let parsed: ReturnType<typeof parseOooCommand>;
  try {
    parsed = parseOooCommand(cmd.text, { now: app.clock.now(), zone });
  } catch (error: unknown) {
    if (error instanceof OooCommandError) return reply(error.message);
    throw error;
  }
  if (parsed.kind === "list") {
    const entries = await app.useCases.listOutOfOffice(key);
    return reply(
      entries.length
        ? entries.map((e) => formatEntry(e, zone)).join("\n")
        : "No out-of-office scheduled.",
    );
  }
  if (parsed.kind === "cancel") {
    const done = await app.useCases.cancelOutOfOffice(key, parsed.id);
    return reply(done ? `Cancelled ${parsed.id}.` : `No out-of-office with id ${parsed.id}.`);
  }
  const entry = await app.useCases.scheduleOutOfOffice(key, parsed.input);
  return reply(`Scheduled ${formatEntry(entry, zone)}`);
});
