import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { systemClock } from "#lib/app/compose/system-clock";
import { ManifestParseError, parseManifestText, validateManifest } from "#lib/schema/manifest";
import { ServiceError } from "#lib/service/errors";
import { ManifestClient } from "#lib/service/manifest-client";
import { CLI_SPECS, CONFIG_TOKEN_ENV, cliUsage } from "./command-specs";
import { type CliIo, EXIT_UNREADABLE } from "./io";

const EXIT_USAGE = 64;
/** The app configuration token may come from here instead of argv (argv shows in `ps`). */
export const TOKEN_ENV = CONFIG_TOKEN_ENV;
const USAGE = cliUsage("manifest push");
const DEFAULT_BASE_URL = "http://127.0.0.1:4010/api";
export const EVENTS_PATH = "/service/events";
export const OOO_COMMAND_PATH = "/service/commands/ooo";
/** The front door's OAuth callback: the manifest's one redirect URL. */
export const OAUTH_CALLBACK_PATH = "/oauth/callback";
export const STATUSPILOT_COMMAND_PATH = "/service/commands/statuspilot";
/** Where clicks on the Home tab's and messages' buttons arrive (functions/routes.ts). */
export const INTERACTIVE_PATH = "/service/interactive";
/** Each slash command's route (functions/routes.ts), by its command. */
const COMMAND_PATHS: Record<string, string> = {
  "/ooo": OOO_COMMAND_PATH,
  "/statuspilot": STATUSPILOT_COMMAND_PATH,
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Points the manifest at a deployment: `requestUrl` is the HTTP API's base URL (or the full
 * events URL); the events subscription, the slash commands, the interactivity request URL (when
 * the manifest has interactivity) and the OAuth redirect URL get their paths under it.
 */
export function withRequestUrl(doc: unknown, requestUrl: string): unknown {
  if (!isObject(doc)) return doc;
  const base = requestUrl.replace(/\/+$/, "").replace(/\/service\/events$/, "");
  const copy = structuredClone(doc);
  const settings = isObject(copy.settings) ? copy.settings : {};
  const subscriptions = isObject(settings.event_subscriptions) ? settings.event_subscriptions : {};
  copy.settings = {
    ...settings,
    event_subscriptions: { ...subscriptions, request_url: base + EVENTS_PATH },
    ...(isObject(settings.interactivity)
      ? { interactivity: { ...settings.interactivity, request_url: base + INTERACTIVE_PATH } }
      : {}),
  };
  const features = isObject(copy.features) ? copy.features : undefined;
  if (features && Array.isArray(features.slash_commands)) {
    features.slash_commands = features.slash_commands.map((c: unknown) => {
      const path =
        isObject(c) && typeof c.command === "string" ? COMMAND_PATHS[c.command] : undefined;
      return path === undefined ? c : { ...(c as Json), url: base + path };
    });
  }
  if (isObject(copy.oauth_config)) {
    copy.oauth_config = { ...copy.oauth_config, redirect_urls: [base + OAUTH_CALLBACK_PATH] };
  }
  return copy;
}

const formatProblems = (problems: Array<{ message: string; pointer: string }>): string =>
  problems.map((p) => `  ${p.pointer || "/"}: ${p.message}`).join("\n");

/**
 * `statuspilot manifest push`: validates the manifest locally, then sends it with
 * `apps.manifest.update`. Exit 0 with `permissions_updated: true|false`; 1 when the manifest is
 * invalid (here or at the service) or the service refuses; 2 when the file cannot be read.
 */
export async function run(
  args: string[],
  io: CliIo,
  deps: { fetch?: typeof fetch; env?: Record<string, string | undefined> } = {},
): Promise<number> {
  let values: {
    "app-id"?: string;
    token?: string;
    "base-url"?: string;
    "request-url"?: string;
    file?: string;
  };
  try {
    ({ values } = parseArgs({
      args,
      options: CLI_SPECS["manifest push"].options,
      strict: true,
      allowPositionals: false,
    }));
  } catch (error: unknown) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return EXIT_USAGE;
  }
  const appId = values["app-id"];
  const token = values.token ?? (deps.env ?? process.env)[TOKEN_ENV];
  if (!appId || !token) {
    io.err(`missing ${appId ? `--token (or ${TOKEN_ENV})` : "--app-id"}\n${USAGE}`);
    return EXIT_USAGE;
  }
  // Without it the placeholder URLs of infra/manifest.yaml would be pushed to the service.
  const requestUrl = values["request-url"];
  if (requestUrl === undefined) {
    io.err(`missing --request-url (the deployed HTTP API's base URL)\n${USAGE}`);
    return EXIT_USAGE;
  }
  if (!/^https?:\/\/[^\s]+$/.test(requestUrl)) {
    io.err(`--request-url must be an http(s) URL, got "${requestUrl}"`);
    return EXIT_USAGE;
  }
  if (/^https?:\/\/[^/]*\.invalid(?::\d+)?(?:\/|$)/i.test(requestUrl)) {
    io.err(`--request-url must be the deployment's URL, not a placeholder: "${requestUrl}"`);
    return EXIT_USAGE;
  }
  const file = values.file ?? "infra/manifest.yaml";

  let doc: unknown;
  try {
    doc = parseManifestText(await readFile(file, "utf8"));
  } catch (error: unknown) {
    if (error instanceof ManifestParseError) io.err(`${file}: ${error.message}`);
    else
      io.err(
        `cannot read ${file}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
      );
    return EXIT_UNREADABLE;
  }
  doc = withRequestUrl(doc, requestUrl);

  const problems = validateManifest(doc);
  if (problems.length > 0) {
    io.err(`${file} is not a valid manifest (nothing was sent):\n${formatProblems(problems)}`);
    return 1;
  }

  const client = new ManifestClient({
    baseUrl: values["base-url"] ?? DEFAULT_BASE_URL,
    clock: systemClock,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  try {
    const result = await client.updateManifest({ token, appId, manifest: JSON.stringify(doc) });
    io.out(`updated ${result.appId}\npermissions_updated: ${result.permissionsUpdated}`);
    return 0;
  } catch (error: unknown) {
    if (!(error instanceof ServiceError)) throw error;
    const detail = error.errors?.length ? `\n${formatProblems(error.errors)}` : "";
    const retry = error.retryAfterS !== undefined ? ` (retry after ${error.retryAfterS}s)` : "";
    io.err(`the service refused the manifest: ${error.code}${retry}${detail}`);
    return 1;
  }
}
