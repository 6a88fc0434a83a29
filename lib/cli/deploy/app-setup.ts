import { DeployError, fromAws } from "./errors";
import type { StageNames } from "./names";
import { type ParameterStates, writeParameter } from "./parameters";
import { creationManifest, type ServiceApp } from "./service-app";
import type { DeployDeps, DeployOptions } from "./types";

/** Where the app's credentials come from when they are not made by `apps.manifest.create`. */
export const CREDENTIAL_ENV = {
  oauthClientId: "STATUSPILOT_CLIENT_ID",
  oauthClientSecret: "STATUSPILOT_CLIENT_SECRET",
  signingSecret: "STATUSPILOT_SIGNING_SECRET",
} as const;

/** The app's id: the stage's, an existing one adopted (--app-id), or a new one created. */
export async function ensureApp(
  options: DeployOptions,
  deps: DeployDeps,
  names: StageNames,
  params: ParameterStates,
  service: ServiceApp,
  manifest: Record<string, unknown>,
): Promise<string> {
  const known = params.appId?.value;
  if (known !== undefined) {
    if (options.appId !== undefined && options.appId !== known) {
      throw new DeployError(
        "bad_input",
        `stage ${names.stage} belongs to app ${known}, not ${options.appId}`,
        `leave out --app-id, or pass --rotate app-id's values by hand in ${names.parameter("appId")}`,
      );
    }
    await service.exportManifest(known);
    const missing = (["signingSecret", "oauthClientId", "oauthClientSecret"] as const).filter(
      (k) => !params[k],
    );
    if (missing.length > 0)
      await storeCredentials(deps, names, params, known, fromEnvironment(deps, names, missing));
    deps.io.out(`  app ${known} (from ${names.parameter("appId")})`);
    return known;
  }
  if (options.appId !== undefined) {
    await service.exportManifest(options.appId);
    // Only what SSM lacks (a deploy stopped while storing them has stored some).
    const absent = (["signingSecret", "oauthClientId", "oauthClientSecret"] as const).filter(
      (k) => !params[k],
    );
    const credentials = fromEnvironment(deps, names, absent);
    await storeCredentials(deps, names, params, options.appId, credentials);
    deps.io.out(`  app ${options.appId} adopted; its credentials are in SSM`);
    return options.appId;
  }
  const created = await service.create(creationManifest(manifest));
  // From here until SSM holds them, the credentials exist only in this process: stored first.
  deps.io.out(`  created app ${created.appId}; storing its credentials in SSM`);
  await storeCredentials(deps, names, params, created.appId, {
    signingSecret: created.signingSecret,
    oauthClientId: created.clientId,
    oauthClientSecret: created.clientSecret,
  }).catch((error: unknown) => {
    const stopped =
      error instanceof DeployError
        ? error
        : fromAws(error, "storing the app's credentials", names.region);
    throw new DeployError(
      stopped.code,
      `${stopped.message}; app ${created.appId} exists at the service without them`,
      `${stopped.fix}, passing --app-id ${created.appId} with ${Object.values(CREDENTIAL_ENV).join(", ")} set from the app's settings page (Basic information), so no second app is made`,
      { cause: error },
    );
  });
  return created.appId;
}

export type Credentials = Partial<
  Record<"signingSecret" | "oauthClientId" | "oauthClientSecret", string>
>;

export function fromEnvironment(
  deps: DeployDeps,
  names: StageNames,
  keys: Array<keyof typeof CREDENTIAL_ENV>,
): Credentials {
  const absent = keys.filter((k) => !deps.env[CREDENTIAL_ENV[k]]);
  if (absent.length > 0) {
    throw new DeployError(
      "bad_input",
      `the app's ${absent.map((k) => names.parameter(k)).join(", ")} ${absent.length === 1 ? "is" : "are"} not in SSM`,
      `set ${absent.map((k) => CREDENTIAL_ENV[k]).join(", ")} from the app's settings page (Basic information) and run the same command again`,
    );
  }
  return Object.fromEntries(keys.map((k) => [k, deps.env[CREDENTIAL_ENV[k]]]));
}

async function storeCredentials(
  deps: DeployDeps,
  names: StageNames,
  params: ParameterStates,
  appId: string,
  credentials: Credentials,
): Promise<void> {
  // The app id first: a run killed outright before the credentials are stored leaves a stage
  // that names its app, so the rerun asks for them instead of making a second app.
  if (!params.appId) await writeParameter(deps.aws.ssm, names, "appId", appId);
  for (const key of ["signingSecret", "oauthClientId", "oauthClientSecret"] as const) {
    const value = credentials[key];
    if (value !== undefined && !params[key]) await writeParameter(deps.aws.ssm, names, key, value);
  }
}
