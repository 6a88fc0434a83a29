import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DeployError } from "./errors";

/**
 * The osls child process that deploys or removes the stack (`osls deploy|remove --stage S
 * --region R --param=name=value…`), its output passed on line by line as progress. Injected,
 * so tests put their own at this boundary.
 */
export interface OslsRunner {
  run(
    action: "deploy" | "remove",
    args: { stage: string; region: string; params: Record<string, string> },
    progress: (line: string) => void,
  ): Promise<void>;
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** The command line osls gets (after its executable). */
export function oslsArgs(
  action: "deploy" | "remove",
  args: { stage: string; region: string; params: Record<string, string> },
): string[] {
  return [
    action,
    "--stage",
    args.stage,
    "--region",
    args.region,
    ...Object.entries(args.params).map(([name, value]) => `--param=${name}=${value}`),
  ];
}

/**
 * Runs the repository's osls (`node_modules/.bin/osls`, or `executable`) in the repository,
 * with this process's environment less the app configuration token and the app's credentials,
 * which osls never needs.
 */
export function childOsls(executable = path.join(repoRoot, "node_modules/.bin/osls")): OslsRunner {
  return {
    run: (action, args, progress) =>
      new Promise<void>((resolve, reject) => {
        const env = Object.fromEntries(
          Object.entries(process.env).filter(([name]) => !name.startsWith("STATUSPILOT_")),
        );
        const child = spawn(executable, oslsArgs(action, args), {
          cwd: repoRoot,
          env: { ...env, SLS_TELEMETRY_DISABLED: "1", SLS_NOTIFICATIONS_MODE: "off" },
          stdio: ["ignore", "pipe", "pipe"],
        });
        const tail: string[] = [];
        const onData = (chunk: Buffer) => {
          for (const line of chunk.toString("utf8").split(/\r?\n/)) {
            if (line.trim() === "") continue;
            tail.push(line);
            if (tail.length > 20) tail.shift();
            progress(line);
          }
        };
        child.stdout.on("data", onData);
        child.stderr.on("data", onData);
        child.on("error", (error) =>
          reject(
            new DeployError(
              "osls",
              `could not start osls (${error.message})`,
              "run `npm ci` in the repository, then the same command again",
              { cause: error },
            ),
          ),
        );
        child.on("close", (code) => {
          if (code === 0) return resolve();
          reject(
            new DeployError(
              "osls",
              `osls ${action} exited with ${code}; its last lines:\n${tail.join("\n")}`,
              "fix what osls names and run the same command again: it resumes where it stopped",
            ),
          );
        });
      }),
  };
}
