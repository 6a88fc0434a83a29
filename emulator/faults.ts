/** Fault injection for resilience tests: rates of injected failures, and seeded randomness. */

export interface FaultSpec {
  /** Error code → probability that an API call answers with it (before doing anything). */
  errors: Record<string, number>;
  /** Probability that an API call never gets an answer (the socket is held, then dropped). */
  timeout: number;
  dropEvent: number;
  duplicateEvent: number;
  /** Extra delay before an event's first delivery attempt, uniformly drawn in [min, max]. */
  delayEventMs: [number, number];
  /**
   * Wall-clock time every API call waits before it is handled, uniformly drawn in [min, max]:
   * a slow service. Absent: no latency.
   */
  latencyMs?: [number, number];
}

/** Codes an API call may be made to answer; all are from spec section 7. */
export const INJECTABLE_CODES: ReadonlySet<string> = new Set([
  "access_denied",
  "accesslimited",
  "deprecated_endpoint",
  "ekm_access_denied",
  "enterprise_is_restricted",
  "fatal_error",
  "internal_error",
  "method_deprecated",
  "org_login_required",
  "ratelimited",
  "request_timeout",
  "service_unavailable",
  "team_access_not_granted",
  "team_added_to_org",
  "two_factor_setup_required",
  "sudo_required",
  "profile_set_failed",
  "partial_profile_set_failed",
  "invalid_ooo_message",
  "username_same",
  "app_not_eligible",
  "failed_adding_collaborator",
  "failed_creating_app",
  "failed_datastore_operation",
]);

export const NO_FAULTS: FaultSpec = Object.freeze({
  errors: {},
  timeout: 0,
  dropEvent: 0,
  duplicateEvent: 0,
  delayEventMs: [0, 0],
}) as FaultSpec;

export class FaultSpecError extends Error {
  readonly pointer: string;
  constructor(message: string, pointer: string) {
    super(message);
    this.name = "FaultSpecError";
    this.pointer = pointer;
  }
}

function rate(key: string, raw: string): number {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n) || n < 0 || n > 1) {
    throw new FaultSpecError(`fault ${key}: rate must be a number from 0 to 1, got "${raw}"`, key);
  }
  return n;
}

/** `MIN..MAX` (or one number) of milliseconds. */
function range(key: string, raw: string): [number, number] {
  const m = /^(\d+)(?:\.\.(\d+))?$/.exec(raw);
  if (!m) throw new FaultSpecError(`fault ${key}: expected MIN..MAX, got "${raw}"`, key);
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : Number(m[2]);
  if (max < min) throw new FaultSpecError(`fault ${key}: MAX is below MIN`, key);
  return [min, max];
}

/** Parses `internal_error=0.1,timeout=0.02,drop_event=0.2,delay_event_ms=0..3000,latency_ms=500`. */
export function parseFaults(spec: string): FaultSpec {
  const out: FaultSpec = {
    errors: {},
    timeout: 0,
    dropEvent: 0,
    duplicateEvent: 0,
    delayEventMs: [0, 0],
  };
  for (const part of spec
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "")) {
    const eq = part.indexOf("=");
    if (eq < 0) throw new FaultSpecError(`fault "${part}": expected name=value`, part);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "timeout") out.timeout = rate(key, value);
    else if (key === "drop_event") out.dropEvent = rate(key, value);
    else if (key === "duplicate_event") out.duplicateEvent = rate(key, value);
    else if (key === "delay_event_ms") out.delayEventMs = range(key, value);
    else if (key === "latency_ms") out.latencyMs = range(key, value);
    else if (INJECTABLE_CODES.has(key)) out.errors[key] = rate(key, value);
    else throw new FaultSpecError(`unknown fault "${key}"`, key);
  }
  return out;
}

export function toFaultSpec(f: FaultSpec | string | undefined): FaultSpec {
  if (f === undefined) return NO_FAULTS;
  return typeof f === "string" ? parseFaults(f) : f;
}

/** mulberry32: small, fast and seedable, so a failing soak run can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
