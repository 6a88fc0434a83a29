import { readFile } from "node:fs/promises";
import { systemClock } from "#lib/app/compose/system-clock";
import { parseManifestText } from "#lib/schema/manifest";
import { type CreatedApp, ManifestClient } from "#lib/service/manifest-client";
import { withRequestUrl } from "../manifest-push";
import { DeployError, fromService } from "./errors";

/** The service's side of a deploy: its `apps.manifest.*` with the app configuration token. */
export interface ServiceApp {
  create(manifest: Record<string, unknown>): Promise<CreatedApp>;
  exportManifest(appId: string): Promise<Record<string, unknown>>;
  update(appId: string, manifest: Record<string, unknown>): Promise<void>;
}

export function serviceApp(options: {
  baseUrl: string;
  token: string | undefined;
  fetch?: typeof fetch;
}): ServiceApp {
  const client = new ManifestClient({
    baseUrl: options.baseUrl,
    clock: systemClock,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const token = (doing: string): string => {
    if (options.token) return options.token;
    throw new DeployError(
      "service_token",
      `no app configuration token for ${doing}`,
      "put an app configuration token of the workspace in STATUSPILOT_CONFIG_TOKEN and run the same command again",
    );
  };
  const at = async <T>(doing: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error: unknown) {
      throw fromService(error, doing);
    }
  };
  return {
    create: (manifest) =>
      at("creating the app", () =>
        client.createManifest({ token: token("creating the app"), manifest }),
      ),
    exportManifest: (appId) =>
      at(`reading app ${appId}'s manifest`, () =>
        client.exportManifest({ token: token("reading the app's manifest"), appId }),
      ),
    update: (appId, manifest) =>
      at(`pointing app ${appId} at the deployment`, async () => {
        await client.updateManifest({ token: token("updating the app"), appId, manifest });
      }),
  };
}

/** infra/manifest.yaml (or another file), read and parsed. */
export async function readManifest(file: string): Promise<Record<string, unknown>> {
  try {
    return parseManifestText(await readFile(file, "utf8")) as Record<string, unknown>;
  } catch (error: unknown) {
    const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new DeployError(
      "bad_input",
      `cannot read the manifest ${file}: ${detail}`,
      "fix the file (or pass --manifest FILE) and run the same command again",
    );
  }
}

/**
 * The manifest an app is created with, before the stack has an address: without its events
 * subscription (the service would try to verify a request URL that answers nothing yet); the
 * commands' and redirect URLs keep their placeholders until the deploy points them.
 */
export function creationManifest(doc: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(doc);
  const settings = copy.settings as Record<string, unknown> | undefined;
  if (settings) delete settings.event_subscriptions;
  return copy;
}

/** The manifest pointed at the deployment: events, commands and redirect URL under `publicUrl`. */
export const deployedManifest = (doc: Record<string, unknown>, publicUrl: string) =>
  withRequestUrl(doc, publicUrl) as Record<string, unknown>;

/** Whether two manifests say the same (key order aside). */
export function sameManifest(a: unknown, b: unknown): boolean {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : typeof v === "object" && v !== null
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
              .map(([k, x]) => [k, canonical(x)]),
          )
        : v;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}
