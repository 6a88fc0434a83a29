import { afterEach, describe, expect, it, vi } from "vitest";
import type { ReconcileFn } from "#lib/app/compose/app";
import { compose, fromEnvironment } from "#lib/app/compose/compose";
import { ModuleNotBundledError } from "#lib/app/compose/modules";
import { ConfigError, loadConfig } from "#lib/app/config";
import { ManualClock } from "#lib/core/clock";
import { UNREACHABLE_APP_ENV } from "../../support/app-env";

/* A deployed function's App: read from the environment once, composed on first use. */

const ENVIRONMENT = UNREACHABLE_APP_ENV;

const stubEnvironment = (values: Record<string, string>) => {
  for (const [name, value] of Object.entries(values)) vi.stubEnv(name, value);
};

describe("fromEnvironment", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("reads nothing until the first invocation asks, then gives every invocation the same App", () => {
    // Prepare: the source is made while the environment is still incomplete
    vi.stubEnv("TABLE_NAME", "");
    const source = fromEnvironment({});
    stubEnvironment(ENVIRONMENT);
    // Act
    const first = source();
    const second = source();
    // Assess
    expect(first.config.TABLE_NAME).toBe("t");
    expect(second).toBe(first);
  });

  it("does not keep a failed composition: the next invocation tries again", () => {
    // Prepare
    stubEnvironment({ ...ENVIRONMENT, TABLE_NAME: "" });
    const source = fromEnvironment({});
    // Act + Assess: the missing variable is named, and fixing it is enough
    expect(() => source()).toThrow(ConfigError);
    expect(() => source()).toThrow(/TABLE_NAME is missing/);
    vi.stubEnv("TABLE_NAME", "t");
    expect(source().config.TABLE_NAME).toBe("t");
  });
});

describe("the modules a function's factory names", () => {
  it("fails a code path that needs a module its function was not given, and says which", async () => {
    // Prepare: the signing secret in SSM, and a function given no modules (as the tick is)
    const config = loadConfig({ ...ENVIRONMENT, SIGNING_SECRET: "", SIGNING_SECRET_PARAM: "/p" });
    const app = compose(config, { clock: new ManualClock(0) });
    // Act
    const read = app.signingSecret();
    // Assess
    await expect(read).rejects.toBeInstanceOf(ModuleNotBundledError);
    await expect(read).rejects.toMatchObject({ code: "module_not_bundled", module: "parameters" });
  });
});

describe("decorateReconcile", () => {
  it("wraps the reconcile the use cases expose, as given at composition", async () => {
    // Prepare: a decorator that answers without reaching the store
    const seen: string[] = [];
    const decorate =
      (_inner: ReconcileFn): ReconcileFn =>
      async (key) => {
        seen.push(key.user);
        return { kind: "nothing" } as Awaited<ReturnType<ReconcileFn>>;
      };
    const app = compose(loadConfig(ENVIRONMENT), { decorateReconcile: decorate });
    // Act
    const outcome = await app.useCases.reconcileUser({ team: "T", user: "U1" });
    // Assess
    expect(outcome.kind).toBe("nothing");
    expect(seen).toEqual(["U1"]);
  });
});
