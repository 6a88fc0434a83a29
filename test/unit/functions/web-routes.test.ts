import { describe, expect, it } from "vitest";
import { isFrontDoorRoute, routes } from "#functions/routes";
import { WEB_ROUTES } from "#functions/shared/web";
import { PATHS, SETTINGS_ACTIONS } from "#lib/web/pages/view-model";

describe("the web function's routes", () => {
  it("are exactly the routes routes.ts (and so serverless.yml) gives the front door's functions", () => {
    const declared = routes
      .filter((r) => isFrontDoorRoute(r))
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    const served = WEB_ROUTES.map((r) => `${r.method} ${r.path}`).sort();
    expect(served).toEqual(declared);
  });

  it("serve /install, the callback, the page, and a POST for every form of the page", () => {
    const served = new Set(WEB_ROUTES.map((r) => `${r.method} ${r.path}`));
    expect(served.has(`GET ${PATHS.install}`)).toBe(true);
    expect(served.has("GET /oauth/callback")).toBe(true);
    expect(served.has(`GET ${PATHS.settings}`)).toBe(true);
    for (const path of Object.values(SETTINGS_ACTIONS))
      expect(served.has(`POST ${path}`)).toBe(true);
  });
});
