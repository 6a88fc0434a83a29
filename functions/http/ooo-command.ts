import { handleOooCommand } from "../../lib/webhooks";
import { httpHandler, replying } from "../shared/http";

/** POST /service/commands/ooo: the `/ooo` slash command, a signed form POST. */
export const handler = httpHandler(replying(handleOooCommand));
