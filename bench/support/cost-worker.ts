/**
 * A worker process of the cost benchmark: simulates the users it is given on a stack of its own
 * (the composition root is one per process) and sends the counts to its parent over IPC.
 * Arguments: a JSON `{ "indices": number[], "days": number }`, or `{ "push": true, "days": number }`
 * for the push-backed user (cost-push.ts).
 */
import { simulateCost } from "./cost-sim";

const send = (message: unknown) =>
  new Promise<void>((resolve, reject) => {
    if (!process.send) {
      reject(new Error("cost-worker runs as a forked child (it needs an IPC channel)"));
      return;
    }
    process.send(message, (error: Error | null) => (error ? reject(error) : resolve()));
  });

try {
  const { indices, days, push } = JSON.parse(process.argv[2] ?? "{}") as {
    indices?: number[];
    days: number;
    push?: boolean;
  };
  // The push-backed user's run needs the whole local stack: loaded only by its own worker.
  const sample = push
    ? await (await import("./cost-push")).simulatePushCost(days)
    : await simulateCost(indices ?? [], days);
  await send({ ok: true, sample });
} catch (error: unknown) {
  await send({ ok: false, error: error instanceof Error ? error.message : String(error) });
  process.exitCode = 1;
}
process.disconnect?.();
