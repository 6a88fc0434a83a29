import { TRANSITION_SENDS_IN_FLIGHT } from "#lib/app/status/records";

// The tick's sends at a herd, as they would take on AWS: the tick enqueues every transition due
// in its next 70 s before the minute turns, and must be done well inside its timeout.

/** An assumed SendMessage request's time in the region (SQS answers in 5 to 10 ms). */
export const AWS_SQS_SEND_MS = 8;
/** An assumed SendMessageBatch request's time in the region (ten small bodies: about one's). */
export const AWS_SQS_SEND_BATCH_MS = 10;
/** serverless.yml's timeout of the tick function (s). */
export const TICK_TIMEOUT_S = 50;

/** The tick's sends for one run, modelled on AWS. */
export interface TickSendModel {
  /** Transitions the run enqueued, and the SendMessageBatch requests that carried them. */
  messages: number;
  requests: number;
  /** Requests in flight at once (lib/app/status/records.ts). */
  inFlight: number;
  /** Modelled: rounds of `inFlight` requests, each AWS_SQS_SEND_BATCH_MS. */
  batchedS: number;
  /** As one SendMessage a transition, one after another (before issue 12's change). */
  sequentialS: number;
  timeoutS: number;
}

/** Models `messages` transitions sent in `requests` batch requests, against one at a time. */
export function tickSendModel(messages: number, requests: number): TickSendModel {
  const rounds = Math.ceil(requests / TRANSITION_SENDS_IN_FLIGHT);
  return {
    messages,
    requests,
    inFlight: TRANSITION_SENDS_IN_FLIGHT,
    batchedS: (rounds * AWS_SQS_SEND_BATCH_MS) / 1000,
    sequentialS: (messages * AWS_SQS_SEND_MS) / 1000,
    timeoutS: TICK_TIMEOUT_S,
  };
}
