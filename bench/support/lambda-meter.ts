import { performance } from "node:perf_hooks";
import type { Clock } from "#lib/core/clock";
import { meteredAs, meterLookUpMs } from "./dynamo-meter";

export interface Invocation {
  /** The serverless.yml function name. */
  fn: string;
  /** Simulated instant the invocation started (epoch ms). */
  at: number;
  /** Real handler time on this machine. */
  ms: number;
  /** Queue messages in the event (SQS batches), absent for other events. */
  messages?: number;
  /** The `reason` of each queue message (SyncMessage / TransitionMessage). */
  reasons?: string[];
  /** Calendar sources the messages name: a poll message carries several. */
  sources?: number;
}

/** Queue messages and their reasons, when the event is an SQS batch. */
function describeEvent(event: unknown): Pick<Invocation, "messages" | "reasons" | "sources"> {
  const records = (event as { Records?: unknown } | undefined)?.Records;
  if (!Array.isArray(records)) return {};
  let sources = 0;
  const reasons = records.map((r: unknown) => {
    try {
      const body = JSON.parse(String((r as { body?: unknown }).body)) as {
        reason?: unknown;
        sources?: unknown;
      };
      sources += Array.isArray(body.sources) ? body.sources.length : 1;
      return typeof body.reason === "string" ? body.reason : "?";
    } catch {
      return "?";
    }
  });
  return { messages: records.length, reasons, sources };
}

// biome-ignore lint/complexity/noBannedTypes: handlers are whatever middy built.
export type Loader = () => Promise<{ handler: Function }>;

/**
 * The bench's instance model: an instance idle this long is assumed reclaimed, so the next
 * invocation is a cold start (a new instance, with empty caches).
 */
export const WARM_MS = 15 * 60_000;

let log: Invocation[] = [];
/** Each function's last invocation start, and its current instance (never reset). */
const lastStart = new Map<string, number>();
const instances = new Map<string, number>();
/** Invocations per function since the process started (never reset). */
const counts = new Map<string, number>();
/**
 * Wraps a function's handler loader so each invocation is recorded: function name, simulated
 * start (on `clock`), and real handler time (less the DynamoDB meter's look-ups in it).
 */
export const timed =
  (fn: string, load: Loader, clock: Clock): Loader =>
  async () => {
    const handler = (await load()).handler;
    return {
      handler: async (...args: unknown[]) => {
        const at = clock.now();
        const previous = lastStart.get(fn);
        if (previous === undefined || at - previous > WARM_MS) {
          instances.set(fn, (instances.get(fn) ?? 0) + 1);
        }
        lastStart.set(fn, at);
        const t0 = performance.now();
        const lookUps0 = meterLookUpMs();
        try {
          return await meteredAs(fn, () => handler(...args));
        } finally {
          // The DynamoDB meter's own look-ups are not the handler's time.
          const ms = performance.now() - t0 - (meterLookUpMs() - lookUps0);
          log.push({ fn, at, ms, ...describeEvent(args[0]) });
          counts.set(fn, (counts.get(fn) ?? 0) + 1);
        }
      },
    };
  };

/** Invocations of `fn` since the process started: a cheap change detector. */
export const invocationCount = (fn: string): number => counts.get(fn) ?? 0;

/**
 * Which instance of `fn` runs now in the model (one instance per function, replaced after
 * WARM_MS idle), numbered from 1; 0 before its first invocation.
 */
export const instanceOf = (fn: string): number => instances.get(fn) ?? 0;

/** Invocations since the last reset. */
export const invocations = (): Invocation[] => [...log];

export function resetInvocations(): void {
  log = [];
}
