import { compose } from "./compose";
import { loadConfig } from "./config";
import type { App, AppOverrides } from "./root";

/*
 * The process-wide App the handlers' `withApp` middleware fetches, and the hooks harnesses use
 * to inject parts. Transitional: it goes once each Lambda has its own factory over `compose`.
 */

let overrides: AppOverrides = {};
let provided: App | undefined;
let building: Promise<App> | undefined;

/** Injects parts before the first getApp() (the local stack's delay queues and clock). */
export function setAppOverrides(partial: AppOverrides): void {
  if (building) throw new Error("setAppOverrides must be called before the first getApp()");
  overrides = { ...overrides, ...partial };
}

/** Supplies a whole App, for handler tests with fakes of our own ports. */
export function provideApp(app: App): void {
  provided = app;
  building = Promise.resolve(app);
}

/** Forgets the cached App and overrides (tests). */
export function resetApp(): void {
  overrides = {};
  provided = undefined;
  building = undefined;
}

/** Builds everything once per process from the environment and caches it. */
export function getApp(): Promise<App> {
  if (provided) return Promise.resolve(provided);
  if (!building) {
    building = buildApp(process.env, overrides);
    // A failed build is not cached: the next invocation retries with the same error message.
    building.catch(() => {
      building = undefined;
    });
  }
  return building;
}

/** The App of `env`'s configuration, overrides first (see `compose`). */
export async function buildApp(
  env: Record<string, string | undefined>,
  parts: AppOverrides,
): Promise<App> {
  return compose(loadConfig(env), parts);
}
