import { randomUUID } from "node:crypto";
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  makeIdempotent,
} from "@aws-lambda-powertools/idempotency";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { Context } from "aws-lambda";
import type { App } from "#lib/app/compose/app";
import type { Clock } from "#lib/core/clock";
import { EVERY_TIME, type EventOnce } from "../../lib/webhooks/event-once";
import { invocationOf } from "./app-context";
import { ClockedPersistenceLayer } from "./clocked-persistence";

/**
 * How long a handled event id is remembered, in seconds. The service retries an event within
 * minutes; afterwards the record expires (TTL on AWS; reads ignore expired ones everywhere).
 */
export const EVENT_ONCE_TTL_S = 3600;

/** The credentials dynalite is given, so the SDK never looks for real ones (as root.ts does). */
const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

/** What a gate runs on: the app's clock, its invocation (for the deadline), its client. */
export interface GateOptions {
  clock: Clock;
  invocation?: () => Context | undefined;
  /** The app's own client when there is one: configured, and guarded locally, like its store. */
  client?: DynamoDBClient;
}

/**
 * An EventOnce over Powertools Idempotency, on our single table: items `PK = IDEMPOTENCY#<gate>`,
 * `SK = <key prefix>#<hash of the event id>`, expiring through the table's TTL attribute on the
 * app's clock. `gate` names what is done once (the events endpoint's recording, the worker's),
 * so two gates never answer for each other.
 */
export function powertoolsEventOnce(
  config: Pick<App["config"], "TABLE_NAME" | "AWS_REGION" | "DYNAMODB_ENDPOINT">,
  gate: string,
  { clock, invocation = () => undefined, client }: GateOptions,
): EventOnce {
  const persistenceStore = new ClockedPersistenceLayer(
    {
      tableName: config.TABLE_NAME,
      partition: `IDEMPOTENCY#${gate}`,
      client:
        client ??
        new DynamoDBClient({
          region: config.AWS_REGION,
          ...(config.DYNAMODB_ENDPOINT
            ? { endpoint: config.DYNAMODB_ENDPOINT, credentials: LOCAL_CREDENTIALS }
            : {}),
        }),
    },
    clock,
  );
  const idempotencyConfig = new IdempotencyConfig({
    eventKeyJmesPath: "eventId",
    expiresAfterSeconds: EVENT_ONCE_TTL_S,
  });
  // `attempt` tells this call's own result from one stored by an earlier call (a replay).
  const once = makeIdempotent(
    async (_key: { eventId: string }, fn: () => Promise<unknown>, attempt: string) => ({
      attempt,
      value: await fn(),
    }),
    { persistenceStore, config: idempotencyConfig, keyPrefix: gate, dataIndexArgument: 0 },
  );
  return {
    async run<T>(eventId: string, fn: () => Promise<T>) {
      // An in-progress record expires with the invocation that wrote it, so a crashed or
      // timed-out invocation's redelivery records the event instead of finding it "in progress"
      // for the record's whole lifetime.
      const context = invocation();
      if (context !== undefined) idempotencyConfig.registerLambdaContext(context);
      const attempt = randomUUID();
      try {
        const result = await once({ eventId }, fn, attempt);
        return result.attempt === attempt ? { value: result.value as T } : undefined;
      } catch (error: unknown) {
        if (error instanceof IdempotencyAlreadyInProgressError) return undefined;
        throw error;
      }
    },
  };
}

/** One gate per app and name, made on first use. */
const gates = new WeakMap<App, Map<string, EventOnce>>();

/**
 * The app's `gate`. An app without a table (handler tests over fakes of our ports) has none:
 * every delivery runs.
 */
export function eventOnceOf(app: App, gate: string): EventOnce {
  if (!app.config.TABLE_NAME) return EVERY_TIME;
  let byName = gates.get(app);
  if (byName === undefined) {
    byName = new Map();
    gates.set(app, byName);
  }
  let once = byName.get(gate);
  if (once === undefined) {
    once = powertoolsEventOnce(app.config, gate, {
      clock: app.clock,
      invocation: () => invocationOf(app),
      client: app.dynamoClient,
    });
    byName.set(gate, once);
  }
  return once;
}
