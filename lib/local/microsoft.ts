import type { MicrosoftEnv } from "#devstack/app";
import {
  DEMO_CLIENTS,
  type RunningMicrosoftEmulator,
  startMicrosoftEmulator,
} from "#emulator/microsoft/server";
import type { Clock } from "#lib/core/clock";
import { type MicrosoftLocalConfig, microsoftEnvOf } from "./microsoft-config";

/** Microsoft for the local stack (see microsoft-config.ts): the configured one or the emulator. */
export interface LocalMicrosoft {
  env: MicrosoftEnv;
  /** The emulator, when none was configured. */
  emulator?: RunningMicrosoftEmulator;
  close(): Promise<void>;
}

/** The configured Microsoft, or an emulator beside the stack (closed with it). */
export async function localMicrosoft(
  configured: MicrosoftLocalConfig | undefined,
  opts: { clock: Clock; manualClock?: boolean },
): Promise<LocalMicrosoft> {
  if (configured !== undefined) {
    return { env: microsoftEnvOf(configured), close: async () => undefined };
  }
  const emulator = await startMicrosoftEmulator({
    clock: opts.clock,
    port: 0,
    // Under a manual clock, the emulator's own timer would not follow it: every request sweeps.
    expirySweepMs: opts.manualClock === true ? 0 : 1000,
  });
  const client = DEMO_CLIENTS[0];
  if (client === undefined) throw new Error("the Microsoft emulator has no demo client");
  return {
    env: microsoftEnvOf({
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      authUrl: emulator.authUrl,
      tokenUrl: emulator.tokenUrl,
      graphBaseUrl: emulator.graphBaseUrl,
    }),
    emulator,
    close: () => emulator.close(),
  };
}
