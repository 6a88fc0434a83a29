import {
  GatewayError,
  type Metrics,
  type StatusGateway,
  type StatusStore,
  VersionConflict,
} from "#lib/core/ports";
import { countProfileSet, countRateLimited, countVersionConflict } from "./catalog";

/**
 * The ports whose every call is worth counting, counted where the calls go out, so no use case
 * has to remember to: each `users.profile.set` (set, clear or refused), each `ratelimited`
 * answer, each versioned write that lost a race.
 */

const RATELIMITED = "ratelimited";

const countIfRateLimited = (metrics: Metrics, error: unknown) => {
  if (error instanceof GatewayError && error.code === RATELIMITED) countRateLimited(metrics);
};

/** The gateway, counting its calls and answers. */
export function countingGateway(gateway: StatusGateway, metrics: Metrics): StatusGateway {
  return {
    async setStatus(target, status) {
      try {
        const answer = await gateway.setStatus(target, status);
        countProfileSet(metrics, status, false);
        return answer;
      } catch (error: unknown) {
        countProfileSet(metrics, status, true);
        countIfRateLimited(metrics, error);
        throw error;
      }
    },
    async readStatus(target) {
      try {
        return await gateway.readStatus(target);
      } catch (error: unknown) {
        countIfRateLimited(metrics, error);
        throw error;
      }
    },
  };
}

/** The store, counting each write that lost a race before it reaches the retry loop. */
export function countingConflicts<S extends StatusStore>(store: S, metrics: Metrics): S {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((error: unknown) => {
          if (error instanceof VersionConflict) countVersionConflict(metrics);
          throw error;
        });
      };
    },
  });
}

/** The use cases' deps with the store and gateway counted into `deps.metrics` (if any). */
export function withCountedPorts<
  D extends { store: StatusStore; gateway: StatusGateway; metrics?: Metrics },
>(deps: D): D {
  const metrics = deps.metrics;
  if (metrics === undefined) return deps;
  return {
    ...deps,
    store: countingConflicts(deps.store, metrics),
    gateway: countingGateway(deps.gateway, metrics),
  };
}
