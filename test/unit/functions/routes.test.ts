import { describe, expect, it } from "vitest";
import { handler as health } from "#functions/http/health";
import { backgroundFunctions, routes } from "#functions/routes";
import { functionEntries } from "#infra/build";

describe("functions/routes.ts", () => {
  it("loads a handler for every route and background function", async () => {
    for (const route of [...routes.map((r) => r.load), ...Object.values(backgroundFunctions)]) {
      expect(typeof (await route()).handler).toBe("function");
    }
  });

  it("names only functions that the build bundles", () => {
    const bundled = new Set(Object.keys(functionEntries));
    for (const route of routes) expect(bundled.has(route.function), route.function).toBe(true);
    for (const name of Object.keys(backgroundFunctions)) expect(bundled.has(name), name).toBe(true);
  });

  it("answers /health without any configuration", async () => {
    const res = await health(
      { rawPath: "/health" } as never,
      { getRemainingTimeInMillis: () => 1000 } as never,
    );
    expect(res).toMatchObject({ statusCode: 200 });
  });
});
