import * as z from "zod";
import {
  charLength,
  describeType,
  isPlainObject,
  type PathSegment,
  type Problem,
  toPointer,
} from "../problems";
import { CALLBACK_ID, list, MANIFEST_LIMITS, type ManifestVersion } from "./blocks";
import {
  CUSTOM_ONLY_OPTIONS,
  CUSTOM_REQUIRED_OPTIONS,
  metadataEventObjectSchema,
  metadataEventReferenceSchema,
} from "./integration-sections";
import { check } from "./issues";
import { isV2Parameters, parametersSchema, parametersV2, triggerSchema } from "./platform-sections";

/** The rules across members, which a shape alone cannot say (spec 4.3). */

function obj(value: unknown): Record<string, unknown> | undefined {
  return isPlainObject(value) ? value : undefined;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The manifest's major version, and a problem when `_metadata.major_version` is neither 1 nor 2. */
export function versionOf(doc: Record<string, unknown>): {
  version: ManifestVersion;
  problems: Problem[];
} {
  const major = obj(doc._metadata)?.major_version;
  if (major === undefined || major === 1) return { version: 1, problems: [] };
  if (major === 2) return { version: 2, problems: [] };
  return {
    version: typeof major === "number" && major > 2 ? 2 : 1,
    problems: [
      {
        message: "major_version must be 1 or 2",
        pointer: toPointer(["_metadata", "major_version"]),
      },
    ],
  };
}

export function mapSizeProblems(doc: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  const limits: [string, number][] = [
    ["types", MANIFEST_LIMITS.types],
    ["mcp_servers", MANIFEST_LIMITS.mcpServers],
  ];
  for (const [member, max] of limits) {
    const map = obj(doc[member]);
    if (map && Object.keys(map).length > max) {
      problems.push({
        message: `${member} must have at most ${max} entries (has ${Object.keys(map).length})`,
        pointer: toPointer([member]),
      });
    }
  }
  for (const id of Object.keys(obj(doc.functions) ?? {})) {
    if (charLength(id) > MANIFEST_LIMITS.functionCallbackId || !CALLBACK_ID.test(id)) {
      problems.push({
        message: `function callback_id must be snake_case, at most ${MANIFEST_LIMITS.functionCallbackId} characters`,
        pointer: toPointer(["functions", id]),
      });
    }
  }
  return problems;
}

export function settingsProblems(
  doc: Record<string, unknown>,
  version: ManifestVersion,
): Problem[] {
  const problems: Problem[] = [];
  const settings = obj(doc.settings);
  const socketMode = settings?.socket_mode_enabled === true;
  const events = obj(settings?.event_subscriptions);
  if (events && events.request_url === undefined && !socketMode) {
    problems.push({
      message: "event subscriptions need a request_url or socket_mode_enabled: true",
      pointer: toPointer(["settings", "event_subscriptions"]),
    });
  }
  const interactivity = obj(settings?.interactivity);
  if (
    interactivity?.is_enabled === true &&
    interactivity.request_url === undefined &&
    !socketMode
  ) {
    problems.push({
      message: "interactivity needs a request_url, or socket_mode_enabled: true",
      pointer: toPointer(["settings", "interactivity"]),
    });
  }
  // Version 2 manifests come from the platform's SDK, whose functions run on the platform.
  const runtime = settings?.function_runtime ?? (version === 2 ? "svc" : undefined);
  const functions = obj(doc.functions);
  if (functions && Object.keys(functions).length > 0) {
    if (runtime === undefined) {
      problems.push({
        message: "functions need settings.function_runtime (remote or svc)",
        pointer: toPointer(["settings", "function_runtime"]),
      });
    }
    if (settings?.org_deploy_enabled !== true) {
      problems.push({
        message: "functions need settings.org_deploy_enabled: true",
        pointer: toPointer(["settings", "org_deploy_enabled"]),
      });
    }
  }
  const domains = doc.outgoing_domains;
  if (Array.isArray(domains) && domains.length > 0 && runtime !== "svc" && runtime !== "slack") {
    problems.push({
      message: "outgoing_domains need settings.function_runtime: svc",
      pointer: toPointer(["outgoing_domains"]),
    });
  }
  return problems;
}

export function scopeProblems(doc: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  const scopes = obj(obj(doc.oauth_config)?.scopes);
  if (!scopes) return problems;
  for (const [optional, base] of [
    ["bot_optional", "bot"],
    ["user_optional", "user"],
  ] as const) {
    const allowed = new Set(stringList(scopes[base]));
    const requested = scopes[optional];
    if (!Array.isArray(requested)) continue;
    requested.forEach((scope: unknown, i) => {
      if (typeof scope === "string" && !allowed.has(scope)) {
        problems.push({
          message: `optional scope ${scope} must also be listed in ${base}`,
          pointer: toPointer(["oauth_config", "scopes", optional, i]),
        });
      }
    });
  }
  return problems;
}

function requiredParameterProblems(params: unknown, base: PathSegment[]): Problem[] {
  const shape = obj(params);
  const properties = obj(shape?.properties);
  if (!shape || !properties || !Array.isArray(shape.required)) return [];
  const problems: Problem[] = [];
  shape.required.forEach((name: unknown, i) => {
    if (typeof name === "string" && !Object.hasOwn(properties, name)) {
      problems.push({
        message: `required parameter ${name} is not in properties`,
        pointer: toPointer([...base, "required", i]),
      });
    }
  });
  return problems;
}

export function functionAndWorkflowProblems(
  doc: Record<string, unknown>,
  version: ManifestVersion,
): Problem[] {
  const problems: Problem[] = [];
  const functions = obj(doc.functions) ?? {};
  if (version === 2) {
    for (const [id, fn] of Object.entries(functions)) {
      for (const member of ["input_parameters", "output_parameters"]) {
        problems.push(...requiredParameterProblems(obj(fn)?.[member], ["functions", id, member]));
      }
    }
  }
  for (const [id, workflow] of Object.entries(obj(doc.workflows) ?? {})) {
    const wf = obj(workflow);
    if (!wf) continue;
    for (const member of ["input_parameters", "output_parameters"]) {
      const params = wf[member];
      const base: PathSegment[] = ["workflows", id, member];
      if (version === 1 && params !== undefined) {
        problems.push(
          ...check(isV2Parameters(params) ? parametersV2 : parametersSchema(1), params, base),
        );
      }
      if (version === 2 || isV2Parameters(params)) {
        problems.push(...requiredParameterProblems(params, base));
      }
    }
    if (Array.isArray(wf.steps)) {
      wf.steps.forEach((step: unknown, i) => {
        const functionId = obj(step)?.function_id;
        if (typeof functionId !== "string" || !functionId.startsWith("#/functions/")) return;
        const target = functionId.slice("#/functions/".length);
        if (!Object.hasOwn(functions, target)) {
          problems.push({
            message: `step calls #/functions/${target}, which the manifest does not declare`,
            pointer: toPointer(["workflows", id, "steps", i, "function_id"]),
          });
        }
      });
    }
    const triggers = wf.suggested_triggers;
    if (triggers === undefined) continue;
    const base: PathSegment[] = ["workflows", id, "suggested_triggers"];
    if (Array.isArray(triggers)) problems.push(...check(list(triggerSchema), triggers, base));
    else if (isPlainObject(triggers)) {
      problems.push(...check(z.record(z.string(), triggerSchema), triggers, base));
    } else {
      problems.push({
        message: `suggested_triggers must be an object or an array, not ${describeType(triggers)}`,
        pointer: toPointer(base),
      });
    }
  }
  return problems;
}

export function metadataEventProblems(doc: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  for (const [name, event] of Object.entries(obj(doc.metadata_events) ?? {})) {
    // A non-object event is already reported by the shape rules.
    if (!isPlainObject(event)) continue;
    const base = ["metadata_events", name];
    const isReference = typeof event.type === "string" && event.type.includes("#");
    const schema = isReference ? metadataEventReferenceSchema : metadataEventObjectSchema;
    problems.push(...check(schema, event, base));
  }
  return problems;
}

export function authProviderProblems(doc: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  const providers = obj(obj(doc.external_auth_providers)?.oauth2) ?? {};
  for (const [key, provider] of Object.entries(providers)) {
    const type = obj(provider)?.provider_type;
    const options = obj(obj(provider)?.options);
    if (!options) continue;
    const base = ["external_auth_providers", "oauth2", key, "options"];
    if (type === "CUSTOM") {
      for (const member of CUSTOM_REQUIRED_OPTIONS) {
        if (options[member] === undefined) {
          problems.push({
            message: `${member} is required for a CUSTOM provider`,
            pointer: toPointer([...base, member]),
          });
        }
      }
    } else if (type === "SVC_PROVIDED" || type === "SLACK_PROVIDED") {
      for (const member of CUSTOM_ONLY_OPTIONS) {
        if (options[member] !== undefined) {
          problems.push({
            message: `${member} is only for CUSTOM providers`,
            pointer: toPointer([...base, member]),
          });
        }
      }
    }
  }
  for (const [key, server] of Object.entries(obj(doc.mcp_servers) ?? {})) {
    const ref = obj(server)?.auth_provider_key;
    if (typeof ref === "string" && !Object.hasOwn(providers, ref)) {
      problems.push({
        message: `auth_provider_key ${ref} names no external auth provider`,
        pointer: toPointer(["mcp_servers", key, "auth_provider_key"]),
      });
    }
  }
  return problems;
}
