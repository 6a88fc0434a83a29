import { handleOooCommand } from "../../lib/webhooks";
import { httpHandler, toResult } from "../shared/http";

/** POST /service/commands/ooo: the `/ooo` slash command, a signed form POST. */
export const handler = httpHandler(async (req, app) => toResult(await handleOooCommand(req, app)));
