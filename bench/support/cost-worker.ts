/**
 * A worker process of the cost benchmark: simulates the users it is given on a stack of its own
 * (the composition root is one per process) and sends the counts to its parent over IPC.
 * Arguments: a JSON `{ "indices": number[], "days": number }`.
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
  const { indices, days } = JSON.parse(process.argv[2] ?? "{}") as {
    indices: number[];
    days: number;
  };
  await send({ ok: true, sample: await simulateCost(indices, days) });
} catch (error: unknown) {
  await send({ ok: false, error: error instanceof Error ? error.message : String(error) });
  process.exitCode = 1;
}
process.disconnect?.();
