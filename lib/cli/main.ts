import { CLI_SPECS, type CliCommandName, type CommandSpec, helpText } from "./command-specs";
import { type CliIo, type Command, processIo } from "./io";

/** A command of the table: what its help says, and how to load what it runs. */
export interface CommandEntry extends CommandSpec {
  load: () => Promise<Command>;
}

// Each command loads lazily so `statuspilot manifest validate` does not pay for the AWS SDK.
const loaders: Record<CliCommandName, () => Promise<Command>> = {
  "manifest validate": async () => (await import("./manifest-validate")).run,
  "manifest push": async () => (await import("./manifest-push")).run,
  "calendar expand": async () => (await import("./calendar")).runExpand,
  "calendar timeline": async () => (await import("./calendar")).runTimeline,
  emulator: async () => (await import("./emulator")).run,
  start: async () => (await import("./start")).run,
  status: async () => (await import("./status")).run,
  metrics: async () => (await import("./metrics")).run,
  "migrate-seals": async () => (await import("./migrate-seals")).run,
  deploy: async () => (await import("./deploy/commands")).runDeploy,
  doctor: async () => (await import("./deploy/commands")).runDoctor,
  destroy: async () => (await import("./deploy/commands")).runDestroy,
};

/** The CLI's own commands, by the words that name them. */
export const cliCommands: Readonly<Record<string, CommandEntry>> = Object.fromEntries(
  Object.entries(CLI_SPECS).map(([name, spec]) => [
    name,
    { ...spec, load: loaders[name as CliCommandName] },
  ]),
);

/**
 * Commands that live above the CLI (the benchmarks and the soak, in bench/): the entry point
 * (bin/statuspilot.mjs) hands them in, so the CLI never imports the tooling built on it.
 */
export type ExtraCommands = Record<string, CommandEntry>;

const isHelp = (arg: string | undefined): boolean => arg === "--help" || arg === "-h";

/** Whether the arguments ask for help (before a `--`, after which all are positionals). */
const asksHelp = (args: readonly string[]): boolean => {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some(isHelp);
};

/** Every command's usage, one per line (notes indented below), under `heading`. */
function usageOf(commands: Record<string, CommandEntry>, heading: string): string {
  const lines = Object.entries(commands).flatMap(([name, c]) => [
    `  ${name} ${c.usage}`.trimEnd(),
    ...(c.notes ? [`      ${c.notes}`] : []),
  ]);
  return [heading, ...lines].join("\n");
}

const TOP_HEADING =
  "usage: statuspilot <command> [options]   (statuspilot <command> --help: one command's help)";

export async function main(
  argv: string[],
  io: CliIo = processIo,
  extra: ExtraCommands = {},
): Promise<number> {
  const all: Record<string, CommandEntry> = { ...cliCommands, ...extra };
  const two = argv.slice(0, 2).join(" ");
  const one = argv[0] ?? "";
  const name = all[two] ? two : all[one] ? one : undefined;
  const entry = name === undefined ? undefined : all[name];
  if (name === undefined || entry === undefined) {
    // A group's first word alone (`calendar`, `manifest`): the usage of its commands.
    const group = Object.entries(all).filter(([n]) => one !== "" && n.startsWith(`${one} `));
    const asked = group.length > 0 ? asksHelp(argv.slice(1)) : argv.length === 0 || isHelp(one);
    const text =
      group.length > 0
        ? usageOf(Object.fromEntries(group), `usage: statuspilot ${one} <command>`)
        : usageOf(all, TOP_HEADING);
    if (asked || one === "help") {
      io.out(text);
      return 0;
    }
    io.err(text);
    return 64;
  }
  const args = argv.slice(name.split(" ").length);
  if (asksHelp(args)) {
    io.out(helpText(name, entry));
    return 0;
  }
  return (await entry.load())(args, io);
}
