import { parseArgs } from "node:util";
import { systemClock } from "#lib/app/compose/system-clock";
import type { LocalGoogleSettings } from "#lib/local/google";
import type { MicrosoftLocalConfig } from "#lib/local/microsoft-config";
import { CLI_SPECS, cliUsage } from "./command-specs";
import { type CliIo, EXIT_UNREADABLE } from "./io";

const USAGE = `${cliUsage("start")}
${CLI_SPECS.start.notes}`;

/** Where `npm start` keeps DynamoDB, the generated secrets and the hook ids between runs. */
const DEFAULT_STATE_DIR = ".statuspilot";

/** Exit code when a port or the service is unavailable (sysexits EX_UNAVAILABLE). */
const EXIT_UNAVAILABLE = 69;

const portOf = (value: string | undefined, fallback: number, flag: string): number | string => {
  const port = Number(value ?? fallback);
  return Number.isInteger(port) && port >= 0 && port <= 65535
    ? port
    : `${flag} must be an integer from 0 to 65535`;
};

/**
 * `statuspilot start`: the whole stack on this machine. Without flags it runs the demo (the
 * emulator's demo workspace and a generated calendar); times print in this machine's zone.
 * Stops cleanly on Ctrl-C or when `signal` aborts.
 */
export async function run(args: string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  let values: {
    workspace?: string;
    config?: string;
    port?: string;
    "emulator-port"?: string;
    "service-url"?: string;
    "state-dir"?: string;
    fresh?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args,
      options: CLI_SPECS.start.options,
      strict: true,
    }));
  } catch (error: unknown) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 64;
  }
  const port = portOf(values.port, 3000, "--port");
  const emulatorPort = portOf(values["emulator-port"], 4010, "--emulator-port");
  if (typeof port === "string" || typeof emulatorPort === "string") {
    io.err(`${typeof port === "string" ? port : emulatorPort}\n${USAGE}`);
    return 64;
  }
  const serviceUrl = values["service-url"];
  if (serviceUrl !== undefined && !URL.canParse(serviceUrl)) {
    io.err(`--service-url is not a URL\n${USAGE}`);
    return 64;
  }
  if (serviceUrl !== undefined && values.config === undefined) {
    io.err(`--service-url needs --config with your users\n${USAGE}`);
    return 64;
  }
  if (
    serviceUrl === undefined &&
    (values.workspace === undefined) !== (values.config === undefined)
  ) {
    io.err(`--workspace and --config go together (or neither, for the demo)\n${USAGE}`);
    return 64;
  }

  const { fileURLToPath } = await import("node:url");
  const { loadWorkspace } = await import("#emulator/server");
  const { loadLocalConfig } = await import("#lib/local/config");
  const { startDemo } = await import("#lib/local/demo");
  const { startStack } = await import("#lib/local/stack");
  const { LocalStackError } = await import("#devstack/errors");
  const { formatLiveEvent, formatLogLine, machineTimeZone, clockTime } = await import(
    "#lib/local/live-log"
  );

  const timeZone = machineTimeZone();
  const clock = systemClock;
  // Warnings and errors, the stack's own and the handlers', as one readable line each (secrets
  // redacted) rather than Powertools JSON.
  const line = (level: "warn" | "error") => (message: string, data?: Record<string, unknown>) =>
    io.err(formatLogLine(level, message, data, { timeZone, at: clock.now() }));
  const readableLog = { debug() {}, info() {}, warn: line("warn"), error: line("error") };
  let demo: Awaited<ReturnType<typeof startDemo>> | undefined;
  let stack: Awaited<ReturnType<typeof startStack>> | undefined;
  try {
    const workspacePath =
      values.workspace ??
      fileURLToPath(new URL("../../emulator/demo-workspace.json", import.meta.url));
    const workspace = serviceUrl === undefined ? loadWorkspace(workspacePath) : undefined;
    let users: ReturnType<typeof loadLocalConfig>;
    // `providers.google` in the config: that Google, and no Google emulator (issue 14).
    let google: LocalGoogleSettings | undefined;
    // `providers.microsoft` likewise: that Microsoft, and no Microsoft emulator.
    let microsoft: MicrosoftLocalConfig | undefined;
    if (values.config !== undefined) {
      users = loadLocalConfig(values.config);
      const providers = (await import("#lib/local/config-providers")).loadLocalProviders(
        values.config,
      );
      google = providers.google;
      microsoft = providers.microsoft;
    } else {
      demo = await startDemo(clock);
      users = demo.users;
    }
    const signingSecret = process.env.SIGNING_SECRET;
    if (serviceUrl !== undefined && !signingSecret) {
      io.err(
        "--service-url needs the app's signing secret in the SIGNING_SECRET environment variable",
      );
      await demo?.close();
      return 64;
    }
    // A real service: the app's OAuth client comes from the environment, like its signing
    // secret; without it the front door stays off. The emulator's comes from the workspace.
    const clientId = process.env.OAUTH_CLIENT_ID;
    const clientSecret = process.env.OAUTH_CLIENT_SECRET;
    stack = await startStack({
      ...(workspace ? { workspace } : {}),
      ...(serviceUrl !== undefined && clientId && clientSecret
        ? { oauthClient: { id: clientId, secret: clientSecret } }
        : {}),
      users,
      // The demo's meetings are in the Google emulator's demo account too: "Connect Google".
      ...(google !== undefined
        ? { google }
        : demo !== undefined
          ? { google: { emulator: { events: demo.events } } }
          : {}),
      ...(microsoft !== undefined ? { microsoft } : {}),
      ...(serviceUrl !== undefined
        ? { serviceUrl, ...(signingSecret ? { signingSecret } : {}) }
        : {}),
      port,
      emulatorPort,
      stateDir: values["state-dir"] ?? DEFAULT_STATE_DIR,
      fresh: values.fresh ?? false,
      time: { mode: "real", clock },
      onLive: (event) => io.out(formatLiveEvent(event, { timeZone })),
      log: readableLog,
      appLog: readableLog,
      logLevel: "WARN",
    });
  } catch (error: unknown) {
    await demo?.close();
    if (error instanceof LocalStackError) {
      io.err(error.message);
      return error.code === "port_in_use" ? EXIT_UNAVAILABLE : EXIT_UNREADABLE;
    }
    if (error instanceof Error && error.name === "WorkspaceError") {
      io.err(error.message);
      return EXIT_UNREADABLE;
    }
    throw error;
  }

  io.out("Statuspilot local stack is up");
  io.out(`  handlers  ${stack.url}  (the API Gateway routes; status: statuspilot status USER)`);
  io.out(`  service   ${stack.serviceBase}${stack.emulator ? "  (emulator)" : ""}`);
  io.out(
    `  dynamodb  ${stack.dynamoEndpoint}  (kept in ${values["state-dir"] ?? DEFAULT_STATE_DIR}; --fresh starts empty)`,
  );
  if (demo) {
    io.out(`  calendar  ${demo.users[0]?.calendars[0] ?? ""}  (demo, relative to now)`);
    io.out(`  admin key ${stack.adminApiKey}  (x-api-key for /admin/...)`);
    io.out(
      `U001's first meeting starts at ${clockTime(demo.events[0]?.start ?? clock.now(), timeZone)}; times are in ${timeZone}.`,
    );
  } else {
    io.out(`  admin key ${stack.adminApiKey}  (x-api-key for /admin/...)`);
    io.out(`Watching ${stack.hooks.size} calendar(s); times are in ${timeZone}.`);
  }
  // Each calendar provider the front door connects to: its emulator's address, or the configured
  // one's API base (`providers.google` / `providers.microsoft` of --config).
  if (stack.google) {
    io.out(
      stack.google.emulator
        ? `  google    ${stack.google.emulator.url}  (emulator; "Connect Google" on the settings page)`
        : `  google    ${stack.google.settings.apiBaseUrl}  (configured; "Connect Google" on the settings page)`,
    );
  }
  if (stack.microsoft) {
    io.out(
      stack.microsoft.emulator
        ? `  microsoft ${stack.microsoft.emulator.url}  (emulator; "Connect Microsoft" on the settings page)`
        : `  microsoft ${stack.microsoft.env.MICROSOFT_GRAPH_BASE_URL}  (configured; "Connect Microsoft" on the settings page)`,
    );
  }
  if (stack.installUrl) {
    io.out(`open ${stack.installUrl}  (install Statuspilot as a demo user, then add a calendar)`);
  }
  if (stack.emulator) {
    // The Home tab (issue 26): the emulator's person opens it; the view the app published is
    // in the emulator's state, under home_views.
    const user = demo?.users[0]?.user ?? "U001";
    io.out(
      `home tab  curl -sX POST ${stack.emulator.url}/_emulator/home_opened -H 'content-type: application/json' -d '{"user":"${user}"}'`,
    );
    io.out(
      `          then ${stack.emulator.url}/_emulator/state shows it under home_views.${user}`,
    );
  }
  io.out("Press Ctrl-C to stop.");

  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    if (signal?.aborted) stop();
    signal?.addEventListener("abort", stop, { once: true });
  });
  io.out("stopping…");
  await stack.close();
  await demo?.close();
  return 0;
}
