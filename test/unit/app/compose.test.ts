import { describe, expect, it } from "vitest";
import { compose } from "#lib/app/compose/compose";
import { ConfigError, loadConfig } from "#lib/app/config";
import { ManualClock } from "#lib/core/clock";
import { UNREACHABLE_APP_ENV } from "../../support/app-env";

/* The composition root is a plain function of the configuration: no I/O, no environment. */

const config = loadConfig(UNREACHABLE_APP_ENV);

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
