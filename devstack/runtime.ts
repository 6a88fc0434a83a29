import { AsyncLocalStorage } from "node:async_hooks";
import type { Context } from "aws-lambda";
import type { Clock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";
import { silentLog } from "#lib/core/ports";
import { createLambdaContext } from "./lambda-context";

// biome-ignore lint/complexity/noBannedTypes: handlers are typed per function; the runtime only calls them.
type AnyHandler = Function;

/** A function as the runtime runs it: its serverless.yml name and timeout, and its handler. */
export interface LambdaFunction {
  name: string;
  timeoutMs: number;
  handler: AnyHandler;
}

export type RuntimeErrorCode = "timeout" | "frozen";

/** Errors of the local Lambda runtime, with the function and request they concern. */
export class RuntimeError extends Error {
  constructor(
    message: string,
    readonly code: RuntimeErrorCode,
    readonly functionName: string,
    readonly requestId: string,
  ) {
    super(message);
    this.name = "RuntimeError";
  }
}

/** The invocation ran past its function's timeout; Lambda stopped it and reports an error. */
export class InvocationTimeoutError extends RuntimeError {
  constructor(
    functionName: string,
    requestId: string,
    readonly timeoutMs: number,
  ) {
    super(
      `${functionName} (${requestId}) timed out after ${timeoutMs} ms`,
      "timeout",
      functionName,
      requestId,
    );
    this.name = "InvocationTimeoutError";
  }
}

/**
 * A port was called from an invocation that already returned or timed out. On Lambda that
 * work is frozen with the sandbox: it may run minutes later in another invocation, or never.
 */
export class FrozenInvocationError extends RuntimeError {
  constructor(
    functionName: string,
    requestId: string,
    readonly port: string,
  ) {
    super(
      `${port} called by ${functionName} (${requestId}) after the invocation ended: on Lambda ` +
        "this work is frozen, not done; finish it before returning, or queue it",
      "frozen",
      functionName,
      requestId,
    );
    this.name = "FrozenInvocationError";
  }
}

interface Invocation {
  functionName: string;
  requestId: string;
  ended: boolean;
  /** Ended by the runtime's close, not by returning: its refusals are expected, not logged. */
  shutDown?: boolean;
}

export interface Refusal {
  functionName: string;
  requestId: string;
  port: string;
}

export type SetTimer = (ms: number, fire: () => void) => () => void;

const realTimer: SetTimer = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};

/**
 * Runs handlers as Lambda does where the difference hides bugs: each invocation is cut off at
 * its function's timeout (its late result ignored), and once it has returned or timed out,
 * any port call from its leftover async work is refused (`FrozenInvocationError`) and logged.
 * Ports take part by being wrapped with `guard`.
 */
export class LambdaRuntime {
  private readonly scope = new AsyncLocalStorage<Invocation>();
  private readonly refused: Refusal[] = [];
  private readonly live = new Set<Invocation>();
  private readonly log: Log;
  private readonly setTimer: SetTimer;

  constructor(private readonly options: { clock: Clock; log?: Log; setTimer?: SetTimer }) {
    this.log = options.log ?? silentLog;
    this.setTimer = options.setTimer ?? realTimer;
  }

  /** Invokes `fn` with `event` and a fresh context; rejects with the timeout if it overruns. */
  async invoke(fn: LambdaFunction, event: unknown): Promise<unknown> {
    const context: Context = createLambdaContext({
      functionName: fn.name,
      clock: this.options.clock,
      timeoutMs: fn.timeoutMs,
    });
    const invocation: Invocation = {
      functionName: fn.name,
      requestId: context.awsRequestId,
      ended: false,
    };
    let cancel = () => {};
    const timedOut = new Promise<never>((_, reject) => {
      cancel = this.setTimer(fn.timeoutMs, () =>
        reject(new InvocationTimeoutError(fn.name, context.awsRequestId, fn.timeoutMs)),
      );
    });
    this.live.add(invocation);
    const running = this.scope.run(invocation, async () => fn.handler(event, context));
    // After a timeout the handler's own outcome goes nowhere, as on Lambda.
    running.catch(() => {});
    try {
      return await Promise.race([running, timedOut]);
    } finally {
      cancel();
      invocation.ended = true;
      this.live.delete(invocation);
    }
  }

  /**
   * Shuts the sandboxes down, as stopping the stack does: every invocation still running ends
   * here, so its next port call (a feed's expansion giving way, say) is refused and the process
   * can exit at once instead of finishing the work.
   */
  close(): void {
    for (const invocation of this.live) {
      invocation.ended = true;
      invocation.shutDown = true;
    }
    this.live.clear();
  }

  /** Throws `FrozenInvocationError` when called from an invocation that has ended. */
  assertLive(port: string): void {
    const invocation = this.scope.getStore();
    if (!invocation?.ended) return;
    const refusal = {
      functionName: invocation.functionName,
      requestId: invocation.requestId,
      port,
    };
    if (invocation.shutDown !== true) {
      this.refused.push(refusal);
      this.log.error("port call after the invocation ended (frozen on Lambda)", { ...refusal });
    }
    throw new FrozenInvocationError(invocation.functionName, invocation.requestId, port);
  }

  /** The port with every method checking first that its caller's invocation is still live. */
  guard<T extends object>(port: string, target: T): T {
    return new Proxy(target, {
      get: (obj, key, receiver) => {
        const value: unknown = Reflect.get(obj, key, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          try {
            this.assertLive(`${port}.${String(key)}`);
          } catch (error: unknown) {
            // Ports are asynchronous: the refusal arrives as their rejection.
            return Promise.reject(error);
          }
          return (value as (...a: unknown[]) => unknown).apply(obj, args);
        };
      },
    });
  }

  /** `fetch` refusing calls from ended invocations. */
  guardFetch(inner: typeof fetch, port = "fetch"): typeof fetch {
    return (input, init) => {
      try {
        this.assertLive(port);
      } catch (error: unknown) {
        return Promise.reject(error);
      }
      return inner(input, init);
    };
  }

  /** Every refused call so far. */
  refusals(): readonly Refusal[] {
    return this.refused;
  }
}
