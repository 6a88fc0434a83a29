import { parseManifestText, validateManifest } from "#lib/schema/manifest";
import { registerMcpServers } from "./mcp";

/** A manifest argument read and checked: the document, or the error code refusing it. */
export type ManifestCheck =
  | { ok: true; manifest: Record<string, unknown> }
  | { ok: false; code: string; extra?: Record<string, unknown> };

/**
 * The `manifest` argument of `apps.manifest.create` and `apps.manifest.update` (a JSON string,
 * YAML accepted, or a JSON object) through `lib/schema/manifest.ts`, then the checks of an app
 * built from it: bot events need a bot user, and each MCP server with dynamic client
 * registration is registered as the platform does (offering `callbackUrl`).
 */
export async function checkManifest(raw: unknown, callbackUrl: string): Promise<ManifestCheck> {
  let doc: unknown = raw;
  if (typeof raw === "string") {
    try {
      doc = parseManifestText(raw);
    } catch (err: unknown) {
      const message = err instanceof Error ? err.message : "manifest is not readable";
      return { ok: false, code: "invalid_manifest", extra: { errors: [{ message, pointer: "" }] } };
    }
  }
  const problems = validateManifest(doc);
  if (problems.length > 0) {
    const errors = problems.map((p) => ({ message: p.message, pointer: p.pointer }));
    return { ok: false, code: "invalid_manifest", extra: { errors } };
  }
  const manifest = doc as Record<string, unknown>;
  const events = (
    manifest.settings as { event_subscriptions?: { bot_events?: unknown[] } } | undefined
  )?.event_subscriptions;
  const features = manifest.features as { bot_user?: unknown } | undefined;
  // The platform builds a bot for bot events; without a bot user the app cannot exist.
  if (
    Array.isArray(events?.bot_events) &&
    events.bot_events.length > 0 &&
    features?.bot_user === undefined
  ) {
    return { ok: false, code: "invalid_app" };
  }
  const registration = await registerMcpServers(manifest, { callbackUrl });
  if (registration) return { ok: false, code: registration };
  return { ok: true, manifest };
}
