/**
 * The modules only some functions need, each loaded on first use. A function's factory
 * (functions/**) names the loaders its code paths call and passes them to `compose`: esbuild
 * bundles a dynamically imported module only where its loader is referenced, so the tick's
 * bundle carries no ical.js, KMS, SSM or service client, without any stub table. Each factory
 * exports what it names (`modules`); the package test holds it against the function's role.
 */
export interface AppModules {
  /**
   * lib/calendar's expand (ical.js, the zone tables): the sync, and the web function for a new
   * calendar's first read (lib/app/sync/feed-probe.ts).
   */
  calendar?: () => Promise<typeof import("#lib/calendar/expand")>;
  /** The KMS token vault: whoever opens sealed tokens or channel secrets on AWS. */
  kms?: () => Promise<typeof import("../secrets/kms-vault")>;
  /** SSM SecureStrings through Powertools Parameters: the signing secret, the web's secrets. */
  parameters?: () => Promise<typeof import("../secrets/signing-secret")>;
  /** The service's profile client: whoever sets or reads a status. */
  service?: () => Promise<typeof import("#lib/service/client")>;
  /** The service's OAuth client: renews rotating tokens before a status call. */
  oauth?: () => Promise<typeof import("#lib/service/oauth-client")>;
  /** The app's bot (views.publish, chat.postMessage): whoever publishes a Home tab or a DM. */
  bot?: () => Promise<typeof import("#lib/service/bot-client")>;
}

export const calendarModule = () => import("#lib/calendar/expand");
export const kmsModule = () => import("../secrets/kms-vault");
export const parametersModule = () => import("../secrets/signing-secret");
export const serviceModule = () => import("#lib/service/client");
export const oauthModule = () => import("#lib/service/oauth-client");
export const botModule = () => import("#lib/service/bot-client");

/**
 * What every function that reconciles needs: it opens the user's token (KMS), reads or sets the
 * status, and renews a rotating token (the OAuth client) before it does.
 */
export const RECONCILER_MODULES = {
  kms: kmsModule,
  service: serviceModule,
  oauth: oauthModule,
} as const satisfies AppModules;

/** Every module: for local stacks and tests, which run every function in one process. */
export const ALL_MODULES: Required<AppModules> = {
  calendar: calendarModule,
  kms: kmsModule,
  parameters: parametersModule,
  service: serviceModule,
  oauth: oauthModule,
  bot: botModule,
};

/** A code path needed a module its function's factory did not name (see functions/**). */
export class ModuleNotBundledError extends Error {
  override name = "ModuleNotBundledError";
  readonly code = "module_not_bundled";
  constructor(readonly module: keyof AppModules) {
    super(
      `the ${module} module is not part of this function: add it to the modules its factory passes`,
    );
  }
}

/** The loader of `module`, or one that fails with ModuleNotBundledError when it is called. */
export function loaderOf<K extends keyof AppModules>(
  modules: AppModules,
  module: K,
): NonNullable<AppModules[K]> {
  const load = modules[module];
  if (load !== undefined) return load as NonNullable<AppModules[K]>;
  return (() => Promise.reject(new ModuleNotBundledError(module))) as NonNullable<AppModules[K]>;
}
