/**
 * OAuth dynamic client registration for MCP servers of a manifest (RFC 8414 discovery, RFC 7591
 * registration), as the platform does on `apps.manifest.update`. Answers the spec 7.3 code of the
 * first server that fails, or undefined when all registered.
 */

export interface McpRegistrationOptions {
  /** The service's OAuth callback address ({oauth_callback_url}), offered as redirect URI. */
  callbackUrl: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const WELL_KNOWN = ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"];

type Json = Record<string, unknown>;

async function getJson(f: typeof fetch, url: string, timeoutMs: number): Promise<Json | undefined> {
  try {
    const res = await f(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return undefined;
    const doc: unknown = await res.json();
    return doc !== null && typeof doc === "object" && !Array.isArray(doc)
      ? (doc as Json)
      : undefined;
  } catch {
    return undefined;
  }
}

async function registerOne(url: string, opts: McpRegistrationOptions): Promise<string | undefined> {
  const f = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 5000;
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return "oauth_metadata_not_found";
  }
  let metadata: Json | undefined;
  for (const path of WELL_KNOWN) {
    metadata = await getJson(f, `${origin}${path}`, timeoutMs);
    if (metadata) break;
  }
  if (!metadata) return "oauth_metadata_not_found";
  if (
    typeof metadata.authorization_endpoint !== "string" ||
    typeof metadata.token_endpoint !== "string"
  ) {
    return "dynamic_client_registration_missing_oauth_endpoints";
  }
  if (typeof metadata.registration_endpoint !== "string") {
    return "dynamic_client_registration_not_supported";
  }
  let res: Response;
  try {
    res = await f(metadata.registration_endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "svc",
        redirect_uris: [opts.callbackUrl],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch {
    return "dynamic_client_registration_failed";
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  const doc = body !== null && typeof body === "object" ? (body as Json) : {};
  if (!res.ok) {
    return doc.error === "invalid_redirect_uri"
      ? "dynamic_client_registration_invalid_redirect_uri"
      : "dynamic_client_registration_rejected";
  }
  if (typeof doc.client_id !== "string" || doc.client_id === "") {
    return "dynamic_client_registration_invalid_response";
  }
  return undefined;
}

export async function registerMcpServers(
  manifest: Record<string, unknown>,
  opts: McpRegistrationOptions,
): Promise<string | undefined> {
  const servers = manifest.mcp_servers;
  if (servers === null || typeof servers !== "object") return undefined;
  for (const server of Object.values(servers as Record<string, unknown>)) {
    const s = (server ?? {}) as { url?: unknown; auth_type?: unknown };
    if (s.auth_type !== "dynamic_client_registration" || typeof s.url !== "string") continue;
    const code = await registerOne(s.url, opts);
    if (code) return code;
  }
  return undefined;
}
