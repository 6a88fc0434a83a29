import { contextOf, type UseCaseContext, type UseCaseDeps } from "#lib/app/context";
import type { StatusGateway } from "#lib/core/ports";
import { silentLog } from "#lib/core/ports";
import type { SourceRecord, UserRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { MemoryQueue } from "./harness";

// For the tests of code that keeps a user's sources and channels but never sets a status.

/**
 * A use-case context with no status gateway (a call to it fails the test), a transition queue
 * in memory and a reconcile that does nothing.
 */
export function statuslessContext(
  deps: Pick<UseCaseDeps, "store" | "clock" | "tokens">,
): UseCaseContext {
  return contextOf(
    { ...deps, gateway: {} as StatusGateway, transitionQueue: new MemoryQueue(), log: silentLog },
    async () => ({ kind: "nothing" }) as never,
  );
}

/** A new user in UTC with `sources` and nothing else, as first written at `at`. */
export const plainUser = (key: UserKey, at: number, sources: SourceRecord[] = []): UserRecord => ({
  key,
  tz: "UTC",
  tokenSealed: "x",
  emails: [],
  sources,
  rules: {},
  mode: "auto",
  version: 0,
  updatedAt: at,
});
