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

/** Which deployment a deploy command acts on, and the app manifest it holds the app to. */
const STAGE_OPTIONS = {
  stage: { type: "string" },
  region: { type: "string" },
  manifest: { type: "string" },
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
  deploy: {
    usage:
      "--stage S --region R [--service-url URL] [--plan] [--app-id A] [--domain D --certificate-arn ARN] [--rotate NAME]... [--manifest FILE] [--allow-downgrade]",
    summary:
      "Creates or updates the app at the service, writes the stage's parameters, deploys the stack, runs this release's upgrades, points the app at it, prints the install link and runs doctor.",
    notes: `The app configuration token comes from ${CONFIG_TOKEN_ENV}. --plan prints every step and call, and makes none. --service-url is needed on the first deploy (the service's web API base). --app-id adopts an app made by hand (its credentials from STATUSPILOT_CLIENT_ID, STATUSPILOT_CLIENT_SECRET, STATUSPILOT_SIGNING_SECRET). --rotate web-key makes a new key; --rotate signing-secret|oauth-client-id|oauth-client-secret stores the value of the variable above. See infra/DEPLOY.md.`,
    options: {
      ...STAGE_OPTIONS,
      "service-url": { type: "string" },
      "app-id": { type: "string" },
      domain: { type: "string" },
      "certificate-arn": { type: "string" },
      rotate: { type: "string", multiple: true },
      plan: { type: "boolean" },
      "allow-downgrade": { type: "boolean" },
    },
  },
  doctor: {
    usage: "--stage S --region R [--manifest FILE]",
    summary:
      "Checks a deployment end to end, one line per check, and says what to do when one fails.",
    notes: `The parameters, the stack, the app's manifest (with ${CONFIG_TOKEN_ENV}), the events route (a signed url_verification), /install, the alarms, the dead-letter queues and the KMS key. Exit 0 when every check passed, 1 otherwise.`,
    options: STAGE_OPTIONS,
  },
  destroy: {
    usage: "--stage S --region R [--delete-data]",
    summary:
      "Removes the stage's stack; the table and the token key are kept unless --delete-data, which asks for the stage's name to be typed back.",
    options: {
      stage: { type: "string" },
      region: { type: "string" },
      "delete-data": { type: "boolean" },
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
