import type { SQSEvent } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { queueHandler } from "#functions/shared/queue";
import type { App } from "#lib/app/compose/app";
import { createLog } from "#lib/app/compose/logger";
import { createPowertoolsMetrics } from "#lib/app/metrics/powertools";
import { ManualClock } from "#lib/core/clock";
import { jsonLinesOf, lambdaContext } from "../../support/lambda";

// SQS moves a message to the dead-letter queue when a receive fails and the receive count has
// reached maxReceiveCount (5 for both queues, infra/resources/queues.yml): that failure, and only
// that one, is a dead letter.
const MAX_RECEIVE_COUNT = 5;

const context = lambdaContext();

function appWithEmf(): App {
  const log = createLog({ level: "SILENT" });
  return {
    config: { LOG_LEVEL: "SILENT" } as App["config"],
    clock: new ManualClock(0),
    log,
    metrics: createPowertoolsMetrics(log),
  } as unknown as App;
}

const record = (messageId: string, body: string, receiveCount: number) => ({
  messageId,
  body,
  attributes: { SentTimestamp: "1000", ApproximateReceiveCount: String(receiveCount) },
});

/** The EMF lines written to stdout while `run` ran, in order. */
async function emfOf(run: () => Promise<unknown>): Promise<Array<Record<string, unknown>>> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: unknown) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return jsonLinesOf(written).filter((line) => "_aws" in line);
}

/** A queue handler over an app that writes EMF, whose work fails for a message saying `fail`. */
const failingWhenAsked = () => {
  const app = appWithEmf();
  return queueHandler(
    () => app,
    z.object({ fail: z.boolean() }),
    async ({ message }) => {
      if (message.fail) throw new Error("service down");
    },
  );
};

describe("the queue chain's metrics", () => {
  it("counts a dead letter for each record failing on its last receive, flushed with the invocation", async () => {
    // Prepare: failures on the 4th and 5th receive, an unreadable body on the 5th, a success
    const handler = failingWhenAsked();
    const event = {
      Records: [
        record("early", '{"fail":true}', MAX_RECEIVE_COUNT - 1),
        record("last", '{"fail":true}', MAX_RECEIVE_COUNT),
        record("unreadable", "{not json", MAX_RECEIVE_COUNT),
        record("fine", '{"fail":false}', MAX_RECEIVE_COUNT),
      ],
    } as unknown as SQSEvent;
    // Act
    const lines = await emfOf(() => handler(event, context));
    // Assess: one line at the end of the invocation, two dead letters in it
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      _aws: {
        CloudWatchMetrics: [
          { Namespace: "Statuspilot", Metrics: [{ Name: "DeadLetters", Unit: "Count" }] },
        ],
      },
      service: "statuspilot",
      DeadLetters: [1, 1],
    });
  });

  it("writes no metrics for an invocation whose records all succeed or will be received again", async () => {
    // Prepare
    const handler = failingWhenAsked();
    const event = {
      Records: [record("a", '{"fail":true}', 1), record("b", '{"fail":false}', MAX_RECEIVE_COUNT)],
    } as unknown as SQSEvent;
    // Act
    const lines = await emfOf(() => handler(event, context));
    // Assess
    expect(lines).toEqual([]);
  });
});
