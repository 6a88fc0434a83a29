import { handleStatuspilotCommand } from "../../lib/webhooks";
import { httpHandler, replying } from "../shared/http";

/** POST /service/commands/statuspilot: the `/statuspilot` slash command, a signed form POST. */
export const handler = httpHandler(replying(handleStatuspilotCommand));
