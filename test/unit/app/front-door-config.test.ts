import { describe, expect, it } from "vitest";
import { authorizeEndpointOf, ConfigError, loadConfig } from "#lib/app/config";
import { createFrontDoorParts } from "#lib/app/people/front-door";
import { ManualClock } from "#lib/core/clock";
import { silentLog } from "#lib/core/ports";
import { MemoryOneTimeMarks } from "#lib/store/memory-one-time-marks";
import { MemoryStore } from "#lib/store/memory-store";
import { MINIMAL_APP_ENV } from "../../support/app-env";

const BASE = MINIMAL_APP_ENV;

function partsFor(env: Record<string, string>, read: string[] = []) {
  const config = loadConfig({ ...BASE, ...env });
  const never = async () => {
    throw new Error("not used");
  };
  return createFrontDoorParts({
    config,
    useCaseDeps: {
      store: new MemoryStore(),
      gateway: { setStatus: never, readStatus: never },
      transitionQueue: { send: async () => undefined },
      clock: new ManualClock(0),
      log: silentLog,
      tokens: { seal: async (v) => v, open: async (v) => v },
    },
    reconcile: never,
    fetch: never,
    feedGuard: { policy: { allowPrivate: false }, resolveHost: async () => [] },
    firstSync: never,
    marks: new MemoryOneTimeMarks(),
    readParameter: async (name, variable) => {
      read.push(`${variable}:${name}`);
      return `from-ssm-${name}`;
    },
  });
}

describe("the front door's configuration", () => {
  it("sends people to the service's own origin's /oauth/v2/authorize unless told otherwise", () => {
    expect(authorizeEndpointOf(loadConfig(BASE))).toBe("https://svc.example/oauth/v2/authorize");
    const told = loadConfig({ ...BASE, SERVICE_AUTHORIZE_URL: "https://login.example/authorize" });
    expect(authorizeEndpointOf(told)).toBe("https://login.example/authorize");
  });

  it("refuses a web key shorter than 32 characters, naming only the variable", () => {
    const short = "too-short-key";
    expect(() => loadConfig({ ...BASE, WEB_KEY: short })).toThrow(ConfigError);
    try {
      loadConfig({ ...BASE, WEB_KEY: short });
    } catch (error: unknown) {
      expect((error as ConfigError).variables).toEqual(["WEB_KEY"]);
      expect((error as Error).message).not.toContain(short);
    }
  });

  it("takes secrets in clear when given, else from the SSM parameter named", async () => {
    const read: string[] = [];
    const clear = partsFor(
      { OAUTH_CLIENT_ID: "c", OAUTH_CLIENT_SECRET: "shh", WEB_KEY: "k".repeat(32) },
      read,
    );
    expect(await clear.client()).toEqual({ id: "c", secret: "shh" });
    expect(await clear.webKey()).toBe("k".repeat(32));
    expect(read).toEqual([]);
    const ssm = partsFor(
      { OAUTH_CLIENT_ID: "c", OAUTH_CLIENT_SECRET_PARAM: "/p/secret", WEB_KEY_PARAM: "/p/key" },
      read,
    );
    expect(await ssm.client()).toEqual({ id: "c", secret: "from-ssm-/p/secret" });
    expect(await ssm.webKey()).toBe("from-ssm-/p/key");
    expect(read).toEqual(["OAUTH_CLIENT_SECRET_PARAM:/p/secret", "WEB_KEY_PARAM:/p/key"]);
  });

  it("names what is missing when the front door is not configured", async () => {
    const none = partsFor({});
    await expect(none.client()).rejects.toMatchObject({ variables: ["OAUTH_CLIENT_ID"] });
    await expect(none.webKey()).rejects.toMatchObject({ variables: ["WEB_KEY"] });
  });
});
