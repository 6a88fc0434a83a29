import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { queueHandler } from "#functions/shared/queue";
import type { App } from "#lib/app/compose/app";
import { createLog } from "#lib/app/compose/logger";
import { ManualClock } from "#lib/core/clock";
import { jsonLinesOf, lambdaContext } from "../../support/lambda";

const context = lambdaContext();

/** An App whose log writes JSON lines (captured from stdout) and nothing else. */
function logOnlyApp(): App {
  return {
    config: { LOG_LEVEL: "INFO" } as App["config"],
    clock: new ManualClock(0),
    log: createLog({ level: "INFO" }),
  } as unknown as App;
}

const record = (messageId: string, body: string) => ({
  messageId,
  body,
  attributes: { SentTimestamp: "1000" },
});

/** The JSON log lines written (to stdout or stderr) while `run` ran, in order. */
async function linesOf(run: () => Promise<unknown>): Promise<Array<Record<string, unknown>>> {
  const written: string[] = [];
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  const out = vi.spyOn(process.stdout, "write").mockImplementation(capture);
  const err = vi.spyOn(process.stderr, "write").mockImplementation(capture);
  try {
    await run();
    return jsonLinesOf(written);
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe("the queue chain", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("reports every record as a failure when none can be read or handled, instead of throwing", async () => {
    // Prepare: one body that is not JSON, one of the wrong shape, one whose handling throws
    const app = logOnlyApp();
    const handled: string[] = [];
    const handler = queueHandler(
      () => app,
      z.object({ n: z.number() }),
      async ({ message, messageId }) => {
        handled.push(messageId);
        if (message.n === 3) throw new Error("store down");
      },
    );
    const event = {
      Records: [record("m-1", "{not json"), record("m-2", '{"n":"two"}'), record("m-3", '{"n":3}')],
    } as unknown as SQSEvent;
    // Act
    let res: SQSBatchResponse | undefined;
    const lines = await linesOf(async () => {
      res = (await handler(event, context)) as SQSBatchResponse;
    });
    // Assess: all three go back to the queue, each unreadable one with its reason logged
    expect(res?.batchItemFailures).toEqual([
      { itemIdentifier: "m-1" },
      { itemIdentifier: "m-2" },
      { itemIdentifier: "m-3" },
    ]);
    expect(handled).toEqual(["m-3"]);
    const unreadable = lines.filter(
      (l) => l.message === "message unreadable; left for the dead-letter queue",
    );
    expect(unreadable.map((l) => l.messageId)).toEqual(["m-1", "m-2"]);
    expect(unreadable.every((l) => typeof l.reason === "string" && l.reason !== "")).toBe(true);
    expect(lines.find((l) => l.message === "message failed; will retry")?.messageId).toBe("m-3");
  });

  it("handles the records one at a time, in order", async () => {
    // Prepare
    const app = logOnlyApp();
    const events: string[] = [];
    const handler = queueHandler(
      () => app,
      z.object({ n: z.number() }),
      async ({ messageId }) => {
        events.push(`start ${messageId}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        events.push(`end ${messageId}`);
      },
    );
    const event = {
      Records: [record("a", '{"n":1}'), record("b", '{"n":2}')],
    } as unknown as SQSEvent;
    // Act
    await linesOf(() => handler(event, context));
    // Assess
    expect(events).toEqual(["start a", "end a", "start b", "end b"]);
  });

  it("puts the request id, function and cold start on every line, and drops per-record keys", async () => {
    // Prepare: a logger made in an on-demand Lambda environment (elsewhere nothing is cold)
    vi.stubEnv("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand");
    const app = logOnlyApp();
    const handler = queueHandler(
      () => app,
      z.object({ user: z.string() }),
      async ({ message }, app) => {
        app.log.appendKeys({ user: message.user });
        app.log.info("handled");
      },
    );
    const event = {
      Records: [record("a", '{"user":"U001"}'), record("b", "{}")],
    } as unknown as SQSEvent;
    // Act
    const lines = await linesOf(async () => {
      await handler(event, context);
      await handler(event, { ...context, awsRequestId: "req-0002" });
    });
    // Assess
    const handled = lines.filter((l) => l.message === "handled");
    expect(handled.map((l) => [l.function_request_id, l.cold_start, l.user])).toEqual([
      ["req-0001", true, "U001"],
      ["req-0002", false, "U001"],
    ]);
    expect(handled[0]?.function_name).toBe("statuspilot-test-worker");
    const unreadable = lines.filter((l) => l.messageId === "b");
    expect(unreadable.map((l) => l.function_request_id)).toEqual(["req-0001", "req-0002"]);
    expect(unreadable.every((l) => l.user === undefined)).toBe(true);
  });
});
