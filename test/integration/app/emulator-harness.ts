import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import {
  loadWorkspace,
  type RunningEmulator,
  startEmulator,
  type Workspace,
} from "#emulator/server";
import { createUseCases, type UseCaseOptions, type UseCases } from "#lib/app/compose/use-cases";
import type { UseCaseDeps } from "#lib/app/context";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { ServiceStatusGateway } from "#lib/app/status/service-gateway";
import { ServiceSnoozeGateway } from "#lib/app/status/snooze-gateway";
import { ManualClock } from "#lib/core/clock";
import { silentLog } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import { ServiceClient } from "#lib/service/client";
import { DynamoStore } from "#lib/store/dynamo-store";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";
import { MemoryQueue, T0 } from "./harness";

const here = path.dirname(fileURLToPath(import.meta.url));
const workspaceFile = path.resolve(here, "../../fixtures/workspaces/conformance.json");

/** A dynalite table and an emulator of the conformance workspace, sharing one clock. */
export interface EmulatorStack {
  readonly dynamo: LocalDynamo;
  readonly emulator: RunningEmulator;
  readonly clock: ManualClock;
}

/**
 * Starts the stack before the file's tests and closes it after them. The servers exist only
 * once `beforeAll` has run, so read `dynamo` and `emulator` inside tests, not at module level.
 */
export function useEmulatorStack(
  options: { faults?: string; workspace?: (ws: Workspace) => void } = {},
): EmulatorStack {
  const clock = new ManualClock(T0);
  let dynamo: LocalDynamo | undefined;
  let emulator: RunningEmulator | undefined;

  beforeAll(async () => {
    dynamo = await startDynalite();
    const workspace = loadWorkspace(workspaceFile);
    options.workspace?.(workspace);
    emulator = await startEmulator({
      workspace,
      clock,
      port: 0,
      expirySweepMs: 0,
      ...(options.faults === undefined ? {} : { faults: options.faults }),
    });
  });
  afterAll(async () => {
    await emulator?.close();
    await dynamo?.close();
  });

  return {
    clock,
    get dynamo() {
      if (dynamo === undefined)
        throw new Error("dynalite is not started yet (used before beforeAll)");
      return dynamo;
    },
    get emulator() {
      if (emulator === undefined)
        throw new Error("the emulator is not started yet (used before beforeAll)");
      return emulator;
    },
  };
}

/** The use cases' parts over the stack: the real store on dynalite, the real client to the emulator. */
export function emulatorDeps(
  stack: EmulatorStack,
  options: Partial<UseCaseOptions> = {},
): UseCaseDeps {
  const client = new ServiceClient({ baseUrl: stack.emulator.apiBase, clock: stack.clock });
  return {
    store: new DynamoStore(stack.dynamo.client, stack.dynamo.tableName),
    gateway: new ServiceStatusGateway(client),
    snoozes: new ServiceSnoozeGateway(client),
    transitionQueue: new MemoryQueue(),
    clock: stack.clock,
    log: silentLog,
    tokens: new LocalTokenVault(Buffer.alloc(32, 5)),
    options,
  };
}

/**
 * Adds the conformance workspace's member (U0MEMBER of T0CONF) with `token`, in auto mode, its
 * timelines from one ICS calendar `work`; returns its key.
 */
export async function addMember(pilot: UseCases, token = "xoxp-member-0001"): Promise<UserKey> {
  const key = { team: "T0CONF", user: "U0MEMBER" };
  await pilot.upsertUser({
    key,
    tz: "Europe/Berlin",
    token,
    sources: [{ id: "work", url: "https://cal.example/work.ics", kind: "ics" }],
    mode: "auto",
  });
  return key;
}

/** The use cases over the stack (emulatorDeps). */
export function emulatorPilot(
  stack: EmulatorStack,
  options: Partial<UseCaseOptions> = {},
): UseCases {
  return createUseCases(emulatorDeps(stack, options));
}
