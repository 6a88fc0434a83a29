import * as z from "zod";
import type { Clock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";
import { ManifestParseError, parseManifestText, validateManifest } from "#lib/schema/manifest";
import { ServiceError } from "./errors";
import { ServiceTransport } from "./transport";

export interface ManifestClientOptions {
  /** Base of the method URLs, e.g. `http://127.0.0.1:4010/api` (a trailing slash is fine). */
  baseUrl: string;
  clock: Clock;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** Validate manifests before sending (default true). Off only to provoke service-side errors. */
  validate?: boolean;
  log?: Log;
}

const manifestUpdateResponseSchema = z.looseObject({
  ok: z.literal(true),
  app_id: z.string(),
  permissions_updated: z.boolean(),
});

const manifestCreateResponseSchema = z.looseObject({
  ok: z.literal(true),
  app_id: z.string().min(1),
  credentials: z.looseObject({
    client_id: z.string().min(1),
    client_secret: z.string().min(1),
    signing_secret: z.string().min(1),
    verification_token: z.string().optional(),
  }),
  oauth_authorize_url: z.string().optional(),
});

const manifestExportResponseSchema = z.looseObject({
  ok: z.literal(true),
  manifest: z.record(z.string(), z.unknown()),
});

/** What `apps.manifest.create` answers: the new app and its credentials (shown only then). */
export interface CreatedApp {
  appId: string;
  clientId: string;
  clientSecret: string;
  signingSecret: string;
  oauthAuthorizeUrl: string | undefined;
}

/**
 * The client of `apps.manifest.*`, apart from the profile client (client.ts) so that the
 * functions that only set statuses never bundle yaml and the manifest schema.
 */
export class ManifestClient {
  private readonly transport: ServiceTransport;
  private readonly validate: boolean;

  constructor(opts: ManifestClientOptions) {
    this.transport = new ServiceTransport(opts);
    this.validate = opts.validate ?? true;
  }

  /** `apps.manifest.update`; the manifest may be JSON or YAML text, or the document itself. */
  async updateManifest(req: {
    token: string;
    appId: string;
    manifest: string | object;
  }): Promise<{ appId: string; permissionsUpdated: boolean }> {
    const manifest = this.manifestText(req.manifest);
    const body = await this.transport.post(
      "apps.manifest.update",
      req.token,
      { app_id: req.appId, manifest },
      { encoding: "json" },
    );
    const ok = this.transport.expect(body, manifestUpdateResponseSchema, "apps.manifest.update");
    return { appId: ok.app_id, permissionsUpdated: ok.permissions_updated };
  }

  /** `apps.manifest.create`: a new app from the manifest; its credentials are answered once. */
  async createManifest(req: { token: string; manifest: string | object }): Promise<CreatedApp> {
    const manifest = this.manifestText(req.manifest);
    const body = await this.transport.post(
      "apps.manifest.create",
      req.token,
      { manifest },
      { encoding: "json" },
    );
    const ok = this.transport.expect(body, manifestCreateResponseSchema, "apps.manifest.create");
    return {
      appId: ok.app_id,
      clientId: ok.credentials.client_id,
      clientSecret: ok.credentials.client_secret,
      signingSecret: ok.credentials.signing_secret,
      oauthAuthorizeUrl: ok.oauth_authorize_url,
    };
  }

  /** `apps.manifest.export`: the app's current manifest. */
  async exportManifest(req: { token: string; appId: string }): Promise<Record<string, unknown>> {
    const body = await this.transport.post(
      "apps.manifest.export",
      req.token,
      { app_id: req.appId },
      { encoding: "json" },
    );
    return this.transport.expect(body, manifestExportResponseSchema, "apps.manifest.export")
      .manifest;
  }

  private manifestText(manifest: string | object): string {
    let doc: unknown = manifest;
    if (typeof manifest === "string") {
      try {
        doc = parseManifestText(manifest);
      } catch (err: unknown) {
        if (!this.validate) return manifest;
        const message = err instanceof ManifestParseError ? err.message : String(err);
        throw new ServiceError(`manifest is not readable: ${message}`, {
          code: "invalid_manifest",
          retryable: false,
          local: true,
          errors: [{ message, pointer: "" }],
          cause: err,
        });
      }
    }
    if (this.validate) {
      const problems = validateManifest(doc);
      if (problems.length > 0) {
        throw new ServiceError(`manifest is invalid: ${problems[0]?.message ?? ""}`, {
          code: "invalid_manifest",
          retryable: false,
          local: true,
          errors: problems.map((p) => ({ message: p.message, pointer: p.pointer })),
        });
      }
    }
    return JSON.stringify(doc);
  }
}
