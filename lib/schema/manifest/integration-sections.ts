import * as z from "zod";
import { isPlainObject } from "../problems";
import {
  ACCOUNT_IDENTIFIER,
  bool,
  freeForm,
  HTTPS_URL,
  list,
  MANIFEST_LIMITS,
  METADATA_REFERENCE,
  strings,
  text,
} from "./blocks";

/** External auth providers, MCP servers, and metadata event definitions and references. */

const identityConfigSchema = z.strictObject({
  url: text({
    min: MANIFEST_LIMITS.identityUrlMin,
    max: MANIFEST_LIMITS.identityUrl,
    pattern: HTTPS_URL,
  }),
  account_identifier: text({
    min: 1,
    max: MANIFEST_LIMITS.accountIdentifier,
    pattern: ACCOUNT_IDENTIFIER,
    patternText: "or a JSON path such as $.email",
  }),
  headers: freeForm.optional(),
  body: freeForm.optional(),
  http_method_type: z.enum(["GET", "POST"]).optional(),
});

export const CUSTOM_ONLY_OPTIONS = [
  "provider_name",
  "authorization_url",
  "token_url",
  "identity_config",
  "authorization_url_extras",
  "use_pkce",
  "token_url_config",
] as const;
export const CUSTOM_REQUIRED_OPTIONS = [
  "provider_name",
  "authorization_url",
  "token_url",
  "identity_config",
] as const;

export const providerSchema = z.strictObject({
  provider_type: z.enum(["CUSTOM", "SVC_PROVIDED", "SLACK_PROVIDED"]),
  options: z.strictObject({
    client_id: text({ min: 1, max: MANIFEST_LIMITS.clientId }),
    scope: strings(),
    provider_name: text({ max: MANIFEST_LIMITS.providerName }).optional(),
    authorization_url: text({ max: MANIFEST_LIMITS.providerUrl, pattern: HTTPS_URL }).optional(),
    token_url: text({ max: MANIFEST_LIMITS.providerUrl, pattern: HTTPS_URL }).optional(),
    authorization_url_extras: freeForm.optional(),
    identity_config: identityConfigSchema.optional(),
    use_pkce: bool.optional(),
    token_url_config: z.strictObject({ use_basic_auth_scheme: bool.optional() }).optional(),
  }),
});

export const metadataEventObjectSchema = z.strictObject({
  type: z.custom<string | Record<string, unknown>>(
    (v) => typeof v === "string" || (isPlainObject(v) && typeof v.type === "string"),
    { message: "must be a string, or an object with a string type" },
  ),
  title: z.string(),
  description: z.string().optional(),
  default: z.union([z.string(), z.number(), z.boolean(), z.array(z.unknown())]).optional(),
  examples: list(z.unknown()).optional(),
  required: strings().optional(),
  additionalProperties: bool.optional(),
  nullable: bool.optional(),
  properties: z
    .record(z.string(), z.looseObject({ type: z.string() }))
    .refine((p) => Object.keys(p).length <= MANIFEST_LIMITS.metadataProperties, {
      message: `must have at most ${MANIFEST_LIMITS.metadataProperties} properties`,
    })
    .optional(),
  is_required: bool.optional(),
  is_hidden: bool.optional(),
  hint: z.string().optional(),
  choices: list(
    z.strictObject({
      value: z.union([z.string(), z.number(), freeForm]),
      title: z.string(),
      description: z.string().optional(),
      is_hidden: bool.optional(),
      hint: z.string().optional(),
    }),
  ).optional(),
  render_condition: z
    .strictObject({
      operator: z.string(),
      conditions: list(z.unknown()),
      is_required: bool.optional(),
    })
    .optional(),
});

export const metadataEventReferenceSchema = z.strictObject({
  type: text({ pattern: METADATA_REFERENCE }),
  title: z.string().optional(),
  description: z.string().optional(),
  default: z.union([z.string(), z.number(), z.boolean(), z.array(z.unknown())]).optional(),
  examples: list(z.unknown(), MANIFEST_LIMITS.metadataExamples).optional(),
  nullable: bool.optional(),
  is_required: bool.optional(),
  is_hidden: bool.optional(),
  hint: z.string().optional(),
});

export const mcpServerSchema = z.strictObject({
  url: text({ max: MANIFEST_LIMITS.mcpUrl }),
  auth_provider_key: text({ max: MANIFEST_LIMITS.authProviderKey }).optional(),
  auth_type: z
    .enum([
      "dynamic_client_registration",
      "no_auth",
      "manual_auth",
      "svc_identity_auth",
      "slack_identity_auth",
    ])
    .optional(),
  headers: z.record(z.string(), z.string()).optional(),
});
