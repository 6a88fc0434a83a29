import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import fc from "fast-check";
import { expect } from "vitest";
import type { AnyHandler } from "./requests";
import { invoke } from "./requests";
import { type FuzzStack, SECRETS } from "./stack";

/** Fixed seeds keep every run reproducible; raise FUZZ_RUNS locally to search harder. */
export const SEED = 20_260_101;
export const runs = (n: number): number => Number(process.env.FUZZ_RUNS ?? n);

/** Says why a 2xx answer is a documented no-op, or undefined when it is not one. */
export type NoOp = (res: APIGatewayProxyStructuredResultV2, body: unknown) => string | undefined;

export const parseBody = (res: APIGatewayProxyStructuredResultV2): unknown => {
  try {
    return JSON.parse(res.body ?? "");
  } catch {
    return undefined;
  }
};

/** The answer's header `name`, whatever case or type the handler gave it; "" without it. */
export const headerOf = (res: APIGatewayProxyStructuredResultV2, name: string): string =>
  String(Object.entries(res.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1] ?? "");

/** The answer's content type, whatever case or type the handler gave the header. */
export const contentTypeOf = (res: APIGatewayProxyStructuredResultV2): string =>
  headerOf(res, "content-type");

const secretValues = Object.values(SECRETS);

/** Secrets found in `text`, except those the caller itself sent (an echo is not a leak). */
export function leakedSecrets(text: string, sent: string): string[] {
  return secretValues.filter((s) => text.includes(s) && !sent.includes(s));
}

/** How a refusal may be written: JSON everywhere, or also an HTML page (the front door's). */
export type RefusalForm = "json" | "json-or-page";

/**
 * The refusal contract: never a 5xx (nor a throw), a 4xx with a JSON `error` code and any
 * `message` as a string (or, for the front door, an HTML page), a 2xx or 3xx only when `noOp`
 * recognises it, and the table, the queues and the service all untouched. Every answer says
 * `nosniff`. Log lines written meanwhile and the answer carry no secret.
 */
export function expectCleanRefusal(
  res: APIGatewayProxyStructuredResultV2,
  opts: { noOp?: NoOp; sent: string; logLines: string[]; form?: RefusalForm },
): void {
  const status = res.statusCode ?? 0;
  expect(status, `status ${status}: ${res.body?.slice(0, 300)}`).toBeGreaterThanOrEqual(200);
  expect(status, `server error: ${res.body?.slice(0, 300)}`).toBeLessThan(500);
  expect(headerOf(res, "x-content-type-options"), `status ${status} without nosniff`).toBe(
    "nosniff",
  );
  const body = parseBody(res);
  if (status >= 400 && opts.form === "json-or-page" && /^text\/html/.test(contentTypeOf(res))) {
    expect(res.body ?? "", "an HTML refusal without a page").toMatch(/^<!doctype html>/i);
  } else if (status >= 400) {
    expect(contentTypeOf(res)).toMatch(/^application\/json/);
    expect(body, `4xx without a JSON body: ${res.body?.slice(0, 200)}`).toBeTypeOf("object");
    const { error, message } = (body ?? {}) as { error?: unknown; message?: unknown };
    expect(error, "4xx without an error code").toMatch(/^[a-z][a-z_]*$/);
    if (message !== undefined) expect(message).toBeTypeOf("string");
  } else {
    const why = opts.noOp?.(res, body);
    expect(why, `unexpected ${status} answer: ${res.body?.slice(0, 300)}`).toBeTypeOf("string");
  }
  expect(leakedSecrets(res.body ?? "", opts.sent), "secret in the answer").toEqual([]);
  const leaks = opts.logLines.filter((line) => leakedSecrets(line, "").length > 0);
  expect(leaks, "secret in a log line").toEqual([]);
}

/**
 * Sends `event` to `handler` and checks the refusal contract, including that nothing the app
 * owns changed (table items, queued messages, calls to the service).
 */
export async function sendAndExpectRefusal(
  stack: FuzzStack,
  handler: AnyHandler,
  event: unknown,
  noOp?: NoOp,
  form: RefusalForm = "json",
): Promise<APIGatewayProxyStructuredResultV2> {
  const before = await stack.observe();
  const mark = stack.logs.lines.length;
  const res = await invoke(handler, event);
  const after = await stack.observe();
  expectCleanRefusal(res, {
    form,
    ...(noOp ? { noOp } : {}),
    sent: safeStringify(event),
    logLines: stack.logs.since(mark),
  });
  expect(after, "state changed").toEqual(before);
  return res;
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}

/** Runs an async property with the suite's seed and a bounded number of runs. */
export async function fuzz<T>(
  arb: fc.Arbitrary<T>,
  numRuns: number,
  check: (value: T) => Promise<void>,
): Promise<void> {
  try {
    await fc.assert(
      fc.asyncProperty(arb, async (value) => {
        await check(value);
      }),
      { numRuns: runs(numRuns), seed: SEED, endOnFailure: true },
    );
  } catch (error: unknown) {
    // Counterexamples hold megabyte bodies; a readable report abbreviates long runs.
    if (error instanceof Error) error.message = abbreviate(error.message);
    throw error;
  }
}

/** Replaces runs of one character longer than 40 with `c×n`, and caps the length. */
export function abbreviate(text: string): string {
  const short = text.replace(/(.)\1{40,}/gs, (run, c: string) => `${c}×${run.length}`);
  return short.length > 4000 ? `${short.slice(0, 4000)}… (${short.length} chars)` : short;
}
