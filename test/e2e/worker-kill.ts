import { AsyncLocalStorage } from "node:async_hooks";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Context } from "aws-lambda";
import type { HandlerWrapper } from "#devstack/lambdas";
import { InvocationTimeoutError } from "#devstack/runtime";

/**
 * Kills the sync worker's invocation at a chosen call, as Lambda does at a timeout: once the
 * provider has answered the call a test armed it for, the invocation ends (the local runtime
 * sees an `InvocationTimeoutError`, and the queue redelivers the batch after its visibility
 * timeout), and everything it still tries afterwards (the record's write, the old channel's stop,
 * the queue) is refused by the runtime's freeze, as on Lambda. Give the stack both wrappers.
 */
export interface WorkerKiller {
  wrapHandler: HandlerWrapper;
  wrapFetch: (inner: typeof fetch) => typeof fetch;
  /** Kills the invocation whose next call matching `call` is answered (once). */
  arm(call: (method: string, url: URL) => boolean): void;
  /** How many invocations were killed so far. */
  kills(): number;
}

type Handler = (event: unknown, context: Context) => Promise<unknown>;

export function workerKiller(functionName = "syncWorker"): WorkerKiller {
  const invocation = new AsyncLocalStorage<{ kill: () => void }>();
  let armed: ((method: string, url: URL) => boolean) | undefined;
  let killed = 0;
  return {
    wrapHandler: (name, handler) => {
      if (name !== functionName) return handler;
      return (event: unknown, context: Context) => {
        let kill = () => {};
        const cutOff = new Promise<never>((_, reject) => {
          kill = () =>
            reject(
              new InvocationTimeoutError(
                name,
                context.awsRequestId,
                context.getRemainingTimeInMillis(),
              ),
            );
        });
        return invocation.run({ kill }, () =>
          Promise.race([(handler as Handler)(event, context), cutOff]),
        );
      };
    },
    wrapFetch: (inner) => async (input, init) => {
      const answer = await inner(input, init);
      const url = new URL(input instanceof Request ? input.url : String(input));
      const method = (
        init?.method ?? (input instanceof Request ? input.method : "GET")
      ).toUpperCase();
      const current = invocation.getStore();
      if (current !== undefined && armed?.(method, url) === true) {
        armed = undefined;
        killed += 1;
        current.kill();
        // Let the runtime mark the invocation ended before the worker sees the answer.
        await nextTurn();
      }
      return answer;
    },
    arm(call) {
      armed = call;
    },
    kills: () => killed,
  };
}
