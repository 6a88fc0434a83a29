/**
 * A model of how AWS runs an SQS queue's Lambda function when a backlog appears (the herd's
 * messages all becoming visible at 09:00): pollers take batches of up to `batchSize` visible
 * messages; Lambda starts with `startConcurrency` concurrent batches and adds up to
 * `addPerMinute` more per minute while messages wait; each new instance pays its module init
 * once (a cold start), a warm one takes the next batch at once. The records of a batch run at
 * once, so a batch takes one message's time plus the CPU of the others. CPU times are the
 * instance's: a Lambda function gets CPU in proportion to its memory (`lambdaCpuShare`).
 */
export interface SqsLambdaModel {
  batchSize: number;
  startConcurrency: number;
  addPerMinute: number;
  /** Module init of a new instance (ms). */
  coldStartMs: number;
  /** One message's time on its own (ms): its CPU, DynamoDB and service calls. */
  messageMs: number;
  /** Of which CPU (ms): what the other records of the batch add while sharing the instance. */
  messageCpuMs: number;
}

/**
 * Lambda's documented CPU allocation: "At 1,769 MB, a function has the equivalent of one vCPU"
 * and less memory gets proportionally less CPU (Configure Lambda function memory, AWS Lambda
 * Developer Guide).
 */
export const LAMBDA_MB_PER_VCPU = 1769;

/**
 * The share of one core a function with `memoryMb` runs its invocations on. One Node process
 * is one thread of JavaScript, so more than one vCPU does not make it faster.
 */
export const lambdaCpuShare = (memoryMb: number): number =>
  Math.min(1, memoryMb / LAMBDA_MB_PER_VCPU);

/** AWS's documented scaling for SQS event sources, and the queue's batch size (serverless.yml). */
export const AWS_SQS_SCALING = { batchSize: 10, startConcurrency: 5, addPerMinute: 300 } as const;

/**
 * When each message is done (ms, on the same scale as `visibleAt`), in the order given, and how
 * many instances were started. Every message is assumed to succeed at its first receive.
 */
export function modelCompletions(
  visibleAt: readonly number[],
  model: SqsLambdaModel,
): { done: number[]; instances: number } {
  const order = visibleAt.map((at, i) => ({ at, i })).sort((a, b) => a.at - b.at);
  const done: number[] = new Array(visibleAt.length).fill(Number.NaN);
  const first = order[0]?.at ?? 0;
  /** Instances by the time each is free again. */
  const instances: number[] = [];
  const stepMs = 60_000 / model.addPerMinute;
  const allowedAt = (t: number) =>
    model.startConcurrency + Math.floor(Math.max(0, t - first) / stepMs);
  let next = 0;
  let t = first;
  while (next < order.length) {
    const head = order[next] as { at: number };
    t = Math.max(t, head.at);
    const busy = instances.filter((free) => free > t).length;
    if (busy >= allowedAt(t)) {
      // Wait for an instance to be free, or for the next step of the scale-out.
      const freeAt = Math.min(...instances.filter((free) => free > t));
      const stepAt = first + (Math.floor((t - first) / stepMs) + 1) * stepMs;
      t = Math.min(freeAt, stepAt);
      continue;
    }
    const batch: number[] = [];
    while (next < order.length && batch.length < model.batchSize && (order[next]?.at ?? 0) <= t) {
      batch.push((order[next] as { i: number }).i);
      next++;
    }
    const warm = instances.findIndex((free) => free <= t);
    const cold = warm < 0;
    const finish =
      t +
      (cold ? model.coldStartMs : 0) +
      model.messageMs +
      model.messageCpuMs * (batch.length - 1);
    if (cold) instances.push(finish);
    else instances[warm] = finish;
    for (const i of batch) done[i] = finish;
  }
  return { done, instances: instances.length };
}
