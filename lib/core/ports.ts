/** Ports the domain depends on; adapters live outside lib/core. */

/** A queue with a per-message delay (SQS DelaySeconds in AWS, an in-process timer queue locally). */
export interface Queue<M> {
  send(message: M, opts?: { delaySeconds?: number; dedupeKey?: string }): Promise<void>;
}

/** Structured logging. Implementations must never print tokens or signing secrets. */
export interface Log {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

export const silentLog: Log = { debug() {}, info() {}, warn() {}, error() {} };
