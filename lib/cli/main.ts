import { type CliIo, type Command, processIo } from "./io";

// Each command loads lazily so `statuspilot manifest validate` does not pay for the AWS SDK.
const commands: Record<string, () => Promise<Command>> = {
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

/**
 * Commands that live above the CLI (the benchmarks and the soak, in bench/): the entry point
 * (bin/statuspilot.mjs) hands them in, so the CLI never imports the tooling built on it.
 */
export type ExtraCommands = Record<string, () => Promise<Command>>;

const usage = `usage: statuspilot <command>
  manifest validate FILE
  manifest push --app-id A --request-url URL [--token T | env STATUSPILOT_CONFIG_TOKEN] [--base-url URL] [--file infra/manifest.yaml]
  calendar expand FILE --from ISO --to ISO [--tz ZONE] [--email ADDR]
  calendar timeline FILE --from ISO --to ISO [--tz ZONE] [--email ADDR]
  emulator --port P --workspace FILE [--faults SPEC]
  start [--workspace FILE --config FILE] [--port 3000] [--emulator-port 4010] [--service-url URL]
  status USER
  metrics [--port 3000] [--json]
  migrate-seals --stage S [--region R] [--table NAME] [--key-id KEY] [--dry-run]
  deploy --stage S --region R [--service-url URL] [--plan] [--domain D --certificate-arn ARN] [--rotate NAME]
  doctor --stage S --region R
  destroy --stage S --region R [--delete-data]
  bench [--quick|--full] [--only calendar,herd,cost,bundles,convergence] [--seeds N]
  soak [--quick]`;

export async function main(
  argv: string[],
  io: CliIo = processIo,
  extra: ExtraCommands = {},
): Promise<number> {
  const all = { ...commands, ...extra };
  const two = argv.slice(0, 2).join(" ");
  const one = argv[0] ?? "";
  const name = all[two] ? two : all[one] ? one : undefined;
  if (!name) {
    io.err(usage);
    return argv.length === 0 || one === "--help" || one === "help" ? 0 : 64;
  }
  const command = await all[name]?.();
  if (!command) return 64;
  return command(argv.slice(name.split(" ").length), io);
}
