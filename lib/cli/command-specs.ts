import type { ParseArgsConfig } from "node:util";

/** A command's options, as node:util's parseArgs takes them. */
export type CommandOptions = NonNullable<ParseArgsConfig["options"]>;

/**
 * What `--help` says of a command, and the options its parser takes: each command parses with
 * exactly these (so its usage is checked against what it accepts, test/unit/cli/help.test.ts).
 */
export interface CommandSpec {
  /** What follows `statuspilot <name>`: positionals and every option. */
  usage: string;
  /** One sentence: what the command does. */
  summary: string;
  /** Further lines of its help (the environment it reads, say). */
  notes?: string;
  options: CommandOptions;
}

/** The environment variable `manifest push` may take the app configuration token from. */
export const CONFIG_TOKEN_ENV = "STATUSPILOT_CONFIG_TOKEN";

/** What both `calendar` subcommands read: a file and a window. */
const CALENDAR_WINDOW = {
  usage: "FILE --from ISO --to ISO [--tz ZONE] [--email ADDR]...",
  options: {
    from: { type: "string" },
    to: { type: "string" },
    tz: { type: "string" },
    email: { type: "string", multiple: true },
  },
} as const;

/**
 * The CLI's commands (lib/cli/main.ts loads each), by the words that name them. A new command
 * adds its entry here and its loader in main.ts; the type there requires both.
 */
export const CLI_SPECS = {
  "manifest validate": {
    usage: "FILE",
    summary: "Checks an app manifest against the service's manifest schema.",
    options: {},
  },
  "manifest push": {
    usage: `--app-id A --request-url URL [--token T | env ${CONFIG_TOKEN_ENV}] [--base-url URL] [--file infra/manifest.yaml]`,
    summary: "Validates the manifest, then sends it to the service (apps.manifest.update).",
    options: {
      "app-id": { type: "string" },
      token: { type: "string" },
      "base-url": { type: "string" },
      "request-url": { type: "string" },
      file: { type: "string" },
    },
  },
  "calendar expand": {
    ...CALENDAR_WINDOW,
    summary: "Prints the occurrences of an .ics file within a window, as JSON.",
  },
  "calendar timeline": {
    ...CALENDAR_WINDOW,
    summary: "Prints the status blocks an .ics file gives within a window, as JSON.",
  },
  emulator: {
    usage: "--workspace FILE [--port 4010] [--faults SPEC] [--seed N] [--body-timeout-ms MS]",
    summary: "Runs the chat service's emulator alone.",
    options: {
      port: { type: "string" },
      workspace: { type: "string" },
      faults: { type: "string" },
      seed: { type: "string" },
      "body-timeout-ms": { type: "string" },
    },
  },
  start: {
    usage:
      "[--workspace FILE --config FILE] [--port 3000] [--emulator-port 4010] [--service-url URL] [--state-dir .statuspilot] [--fresh]",
    summary: "Runs the whole stack on this machine; without flags, the demo.",
    notes:
      "With --service-url: SIGNING_SECRET, and OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET for /install, in the environment.",
    options: {
      workspace: { type: "string" },
      config: { type: "string" },
      port: { type: "string" },
      "emulator-port": { type: "string" },
      "service-url": { type: "string" },
      "state-dir": { type: "string" },
      fresh: { type: "boolean" },
    },
  },
  status: {
    usage: "USER [--team T] [--port 3000]",
    summary:
      "Shows a user's status, read from the running local stack; --team only when the id is in more than one team.",
    options: { team: { type: "string" }, port: { type: "string" } },
  },
  metrics: {
    usage: "[--port 3000] [--json]",
    summary: "Prints the metrics the running local stack's functions recorded.",
    options: { port: { type: "string" }, json: { type: "boolean" } },
  },
  "migrate-seals": {
    usage: "--stage S [--region R] [--table NAME] [--key-id KEY] [--endpoint URL] [--dry-run]",
    summary:
      "Seals every stored secret under its owner (infra/DEPLOY.md, upgrading sealed values).",
    options: {
      stage: { type: "string" },
      region: { type: "string" },
      table: { type: "string" },
      "key-id": { type: "string" },
      // A DynamoDB endpoint other than AWS's (a local copy of the table).
      endpoint: { type: "string" },
      "dry-run": { type: "boolean" },
    },
  },
} as const satisfies Record<string, CommandSpec>;

export type CliCommandName = keyof typeof CLI_SPECS;

/** `usage: statuspilot status USER [--team T] [--port 3000]`: the line errors end with. */
export const usageLine = (name: string, spec: Pick<CommandSpec, "usage">): string =>
  `usage: statuspilot ${name} ${spec.usage}`.trimEnd();

/** What `statuspilot <name> --help` prints. */
export const helpText = (name: string, spec: CommandSpec): string =>
  [usageLine(name, spec), "", spec.summary, ...(spec.notes ? [spec.notes] : [])].join("\n");

/** The usage line of one of the CLI's own commands. */
export const cliUsage = (name: CliCommandName): string => usageLine(name, CLI_SPECS[name]);
