import { describe, expect, it } from "vitest";
import { compose } from "#lib/app/compose/compose";
import { ConfigError, loadConfig } from "#lib/app/config";
import { ManualClock } from "#lib/core/clock";

/* The composition root is a plain function of the configuration: no I/O, no environment. */

// Nothing listens on port 9 (discard) of this reserved test address: any I/O would fail.
const UNREACHABLE = "http://192.0.2.1:9";

const config = loadConfig({
  TABLE_NAME: "t",
  DYNAMODB_ENDPOINT: UNREACHABLE,
  SERVICE_BASE_URL: `${UNREACHABLE}/api`,
  SIGNING_SECRET: "s",
  TOKEN_KEY: Buffer.alloc(32, 1).toString("base64"),
  TRANSITION_QUEUE_URL: `${UNREACHABLE}/transition`,
  SYNC_QUEUE_URL: `${UNREACHABLE}/sync`,
  LOG_LEVEL: "SILENT",
});

describe("compose", () => {
  it("returns the App at once, without a promise and without fetching anything", () => {
    // Prepare
    const fetched: string[] = [];
    const fetchSpy = (async (input: RequestInfo | URL) => {
      fetched.push(String(input));
      throw new Error("compose must not fetch");
    }) as typeof fetch;
    // Act
    const app = compose(config, { clock: new ManualClock(0), fetch: fetchSpy });
    // Assess
    expect(typeof (app as unknown as { then?: unknown }).then).toBe("undefined");
    expect(app.config).toBe(config);
    expect(typeof app.useCases.reconcileUser).toBe("function");
    expect(fetched).toEqual([]);
  });

  it("composes twice into two separate Apps (nothing is cached between calls)", () => {
    // Act
    const first = compose(config, {});
    const second = compose(config, {});
    // Assess
    expect(first).not.toBe(second);
    expect(first.useCases).not.toBe(second.useCases);
  });

  it("refuses a configuration without a queue URL when no queue is injected", () => {
    // Prepare
    const { SYNC_QUEUE_URL: _dropped, ...withoutSyncQueue } = config;
    // Act + Assess
    expect(() => compose(withoutSyncQueue as typeof config, {})).toThrow(ConfigError);
  });
});
