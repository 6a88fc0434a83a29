import type { Clock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";
import { type LocalGoogle, startLocalGoogle } from "./google";
import { type LocalMicrosoft, localMicrosoft } from "./microsoft";
import type { StackOptions } from "./stack-types";

/**
 * The calendar providers a local stack with a front door connects to: each the one its options
 * name (`providers.google` / `providers.microsoft` of `--config`), else its emulator; none when
 * the option is `false` or the front door is off.
 */
export async function startLocalProviders(
  options: Pick<StackOptions, "google" | "microsoft">,
  at: { publicBaseUrl: string; clock: Clock; manualClock: boolean; log: Log },
): Promise<{ google?: LocalGoogle; microsoft?: LocalMicrosoft; close(): Promise<void> }> {
  const given = options.google;
  const google =
    given === false
      ? undefined
      : await startLocalGoogle({
          publicBaseUrl: at.publicBaseUrl,
          clock: at.clock,
          log: at.log,
          ...(given !== undefined && "clientId" in given
            ? { given }
            : {
                autoApprove: given?.emulator.autoApprove === true,
                ...(given?.emulator.events !== undefined ? { events: given.emulator.events } : {}),
              }),
        });
  const microsoft =
    options.microsoft === false
      ? undefined
      : await localMicrosoft(options.microsoft, { clock: at.clock, manualClock: at.manualClock });
  return {
    ...(google ? { google } : {}),
    ...(microsoft ? { microsoft } : {}),
    async close() {
      await microsoft?.close();
      await google?.close();
    },
  };
}
