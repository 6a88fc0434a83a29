import { afterAll, afterEach, beforeAll } from "vitest";
import { type RunningEmulator, startEmulator } from "#emulator/server";
import type { Workspace } from "#emulator/workspace";
import { runDeploy, runDestroy, runDoctor } from "#lib/cli/deploy/commands";
import { stageNames } from "#lib/cli/deploy/names";
import { ManualClock } from "#lib/core/clock";
import { bufferIo, commandDeps, FakeOsls, startDeployedStack } from "../../support/deploy-harness";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";
import { FakeAws } from "../../support/fake-aws";
import { conformanceWorkspace } from "../service/harness";

export const REGION = "eu-west-1";
export const TOKEN = "xoxe-config-admin-0001";
export const FRESH_TOKEN = "xoxe-config-admin-0002";
export const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
let stages = 0;

/**
 * One deploy world: a fake AWS account, the emulator as the service (with two config tokens of
 * U0ADMIN), FakeOsls, and the deployed stack's handlers started whenever osls deploys. Each
 * world has its own stage name, so the Powertools parameter cache (per parameter name, per
 * process) never carries a value from another test.
 */
export async function world(
  dynamo: LocalDynamo,
  options: { mutate?: (ws: Workspace) => void } = {},
) {
  const stage = `t${++stages}${process.pid % 1000}`;
  const names = stageNames(stage, REGION);
  const clock = new ManualClock(T0);
  const workspace = conformanceWorkspace((ws) => {
    ws.tokens.push({
      token: FRESH_TOKEN,
      type: "config",
      user: "U0ADMIN",
      scopes: [],
      state: "active",
    });
    options.mutate?.(ws);
  });
  const emulator: RunningEmulator = await startEmulator({ workspace, clock, expirySweepMs: 0 });
  const aws = new FakeAws(REGION).install();
  const osls = new FakeOsls(aws);
  let stack: Awaited<ReturnType<typeof startDeployedStack>> | undefined;
  const serviceCalls: string[] = [];
  /** Sees each call to the service before it is sent; an error it answers is thrown instead. */
  let serviceIntercept: (method: string) => Error | undefined = () => undefined;
  const env: Record<string, string | undefined> = { STATUSPILOT_CONFIG_TOKEN: TOKEN };
  const deps = () =>
    commandDeps({
      aws,
      osls: {
        run: async (action, args, progress) => {
          await osls.run(action, args, progress);
          await stack?.close();
          stack = action === "deploy" ? await startDeployedStack(aws, stage, dynamo) : undefined;
        },
      },
      env,
      stackFetch: () => stack?.fetch,
      answer: stage,
      onServiceCall: (method) => {
        serviceCalls.push(method);
        const refused = serviceIntercept(method);
        if (refused) throw refused;
      },
    });
  const run = async (command: typeof runDeploy, args: string[]) => {
    const io = bufferIo();
    const code = await command(args, io, deps());
    return { code, out: io.all() };
  };
  const stageArgs = ["--stage", stage, "--region", REGION];
  return {
    stage,
    names,
    clock,
    emulator,
    aws,
    osls,
    env,
    serviceCalls,
    stack: () => stack,
    interceptService(f: (method: string) => Error | undefined) {
      serviceIntercept = f;
    },
    deploy: (...extra: string[]) =>
      run(runDeploy, [...stageArgs, "--service-url", emulator.apiBase, ...extra]),
    redeploy: (...extra: string[]) => run(runDeploy, [...stageArgs, ...extra]),
    doctor: () => run(runDoctor, stageArgs),
    destroy: (...extra: string[]) => run(runDestroy, [...stageArgs, ...extra]),
    /** Apps the deploy made at the service (not in the workspace file). */
    createdApps: () => emulator.snapshot().createdApps,
    async close() {
      await stack?.close();
      aws.restore();
      await emulator.close();
    },
  };
}

export type World = Awaited<ReturnType<typeof world>>;

/** Every secret the world holds: the config tokens and what SSM keeps as SecureStrings. */
export function secretsOf(w: World): string[] {
  return [
    TOKEN,
    FRESH_TOKEN,
    ...[...w.aws.params.values()].filter((p) => p.type === "SecureString").map((p) => p.value),
    ...w.createdApps().flatMap((a) => [a.client_secret, a.signing_secret]),
  ];
}

/**
 * Registers this file's hooks (one dynalite for the file, every world closed after its test)
 * and answers the function that opens a world.
 */
export function worldsOfEachTest() {
  let dynamo: LocalDynamo | undefined;
  const open: World[] = [];
  beforeAll(async () => {
    dynamo = await startDynalite();
  });
  afterAll(async () => {
    await dynamo?.close();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((w) => w.close()));
  });
  return {
    async open(options?: Parameters<typeof world>[1]): Promise<World> {
      if (!dynamo) throw new Error("no dynalite yet");
      const w = await world(dynamo, options);
      open.push(w);
      return w;
    },
    /** Closes a world before the test ends (a loop of many). */
    async close(w: World): Promise<void> {
      open.splice(open.indexOf(w), 1);
      await w.close();
    },
  };
}
