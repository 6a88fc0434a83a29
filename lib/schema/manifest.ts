import { parse as parseYaml } from "yaml";
import * as z from "zod";
import { ManifestParseError } from "./errors";
import {
  charLength,
  describeType,
  isPlainObject,
  type PathSegment,
  type Problem,
  toPointer,
} from "./problems";

export { ManifestInvalidError, ManifestParseError } from "./errors";

/*
 * The app manifest of `apps.manifest.update` (spec 4.3, limits 8.3, versions 9).
 *
 * Where the spec and the platform's official JSON Schema differ, the spec wins, but a manifest the
 * real platform accepts must not be rejected. The real platform writes `slack` where the spec
 * writes `svc` (`function_runtime: slack`, `slack#/types/...`, `SLACK_PROVIDED`,
 * `slack_identity_auth`); both spellings are accepted. Differences, each marked "Official:":
 * - `$schema`, `_metadata.schema_version`/`min_version` and `settings.hermes_app_type` exist in
 *   the official schema only; they are accepted.
 * - `external_auth_providers` nests providers under `oauth2` as the official schema does; the
 *   spec's table describes one provider.
 * - `identity_config.account_identifier`: the spec gives `^https:\/\/`, the official schema a
 *   JSON path `^\$\.(.)+` (what real manifests use, e.g. "$.email"); either is accepted.
 * - `bot_user.display_name`: the spec allows a-z, 0-9, `-`, `_`, `.`, yet the official fixtures
 *   use "Bolt Template App"; letters of any case, digits, spaces and `-_.'` are accepted.
 * - `agent_view.suggested_prompts`: at most 4 (official; the spec names no limit).
 * - Parameter and custom type definitions are open (official `additionalProperties: true`), so
 *   `default`, `items`, `properties`, `enum`... pass. Every listed member is still type-checked.
 * - `workflows.*.suggested_triggers` is a map in the spec and an array in the official schema;
 *   both are accepted.
 * - `settings.function_runtime` is required when functions are declared; in a version 2 manifest
 *   (the platform SDK's format, whose official fixtures omit it) it defaults to `svc`.
 * - `allowed_ip_address_ranges`: at most 10 (spec; official 50).
 * - `long_description`'s 174-character minimum is enforced by the settings editor only (spec).
 * - Workflow `input_parameters`/`output_parameters` have the version 2 shape in the spec's
 *   workflows table even for version 1 manifests; a version 1 manifest may use that shape or the
 *   version 1 flat map (the union). Function parameters follow the manifest's version strictly.
 * - "Full https URL" (slash command `url`, `event_subscriptions.request_url`, the interactivity
 *   URLs) is enforced: `http://` is refused. The app directory URLs keep the spec's `^https?:\/\/`.
 */

export type ManifestVersion = 1 | 2;

/** Line and column (both from 1) of a UTF-16 offset in `text`. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split("\n");
  return { line: lines.length, column: (lines[lines.length - 1]?.length ?? 0) + 1 };
}

/** JSON.parse's reason with its position as line and column ("at line 3, column 5"). */
function jsonErrorMessage(text: string, error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const position = /at position (\d+)/.exec(raw)?.[1];
  // "Unexpected end of JSON input" carries no position: the problem is at the end.
  const offset = position === undefined ? text.length : Number(position);
  const { line, column } = lineAndColumn(text, offset);
  const reason = raw.replace(/\s*in JSON at position \d+.*$/s, "").replace(/\s*\(line \d+.*$/s, "");
  return `${reason} at line ${line}, column ${column}`;
}

/**
 * Parses manifest text: JSON first, then YAML. Throws ManifestParseError (one-line message). Text
 * that starts with `{` or `[` is meant as JSON, so when YAML cannot read it either, the error is
 * JSON's (with line and column), not the YAML parser's.
 */
export function parseManifestText(text: string): unknown {
  let jsonError: unknown;
  try {
    return JSON.parse(text);
  } catch (error: unknown) {
    // Not JSON: YAML is a superset for documents, so try it next.
    jsonError = error;
  }
  const looksLikeJson = /^\s*[{[]/.test(text);
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: true });
  } catch (error: unknown) {
    if (looksLikeJson) {
      throw new ManifestParseError(
        `manifest is not valid JSON: ${jsonErrorMessage(text, jsonError)}`,
        { cause: jsonError },
      );
    }
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new ManifestParseError(`manifest is neither JSON nor YAML: ${reason}`, { cause: error });
  }
  if (doc === undefined || doc === null) {
    throw new ManifestParseError("manifest is empty");
  }
  return doc;
}

// --- building blocks --------------------------------------------------------------------------

const HTTP_URL = /^https?:\/\//;
const HTTPS_URL = /^https:\/\//;
const HEX_COLOR = /^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/;
// Spec, exactly.
const OUTGOING_DOMAIN = /^(?![.-])([-a-zA-Z0-9.])+([a-zA-Z0-9])$/;
const METADATA_REFERENCE = /^(?!slack)(\w*#)\/(\w+)\/(\w+)$/;
// Official: an unfurl domain has the outgoing-domain shape.
const UNFURL_DOMAIN = OUTGOING_DOMAIN;
const SLASH_COMMAND = /^\//;
const BOT_DISPLAY_NAME = /^[\p{L}\p{N}\p{M} ._'-]+$/u;
// Official: the HTML5 e-mail address rule.
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const IPV4_RANGE =
  /^(([0-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])\.){3}([0-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])(\/(3[0-2]|[1-2][0-9]|[0-9]))?$/;
const ACCOUNT_IDENTIFIER = /^https:\/\/|^\$\.(.)+/;
// Plain types, or built-in (`svc#/types/...`, `slack#/types/...`) and custom (`#/types/...`) ones.
const PARAMETER_TYPE =
  /^(?:integer|number|boolean|string|object|array)$|^(?:svc|slack)?#\/types\/[\w./-]+$/;
const CALLBACK_ID = /^[a-z0-9_]+$/;

export const MANIFEST_LIMITS = {
  name: 35,
  description: 140,
  longDescription: 4000,
  botDisplayName: 80,
  agentDescription: 300,
  agentSuggestedPrompts: 4,
  shortcuts: 10,
  shortcutCallbackId: 255,
  shortcutDescription: 150,
  slashCommands: 50,
  command: 32,
  commandDescription: 2000,
  usageHint: 1000,
  unfurlDomains: 5,
  workflowSteps: 10,
  workflowStepName: 50,
  workflowStepCallbackId: 50,
  redirectUrls: 1000,
  scopes: 255,
  allowedIpAddressRanges: 10,
  events: 100,
  functionCallbackId: 100,
  functionTitle: 255,
  outgoingDomains: 10,
  types: 50,
  metadataProperties: 50,
  metadataExamples: 10,
  slackbotExamples: 5,
  clientId: 1024,
  providerName: 255,
  providerUrl: 255,
  identityUrlMin: 5,
  identityUrl: 255,
  accountIdentifier: 255,
  mcpServers: 20,
  mcpUrl: 500,
  authProviderKey: 255,
} as const;

interface TextRules {
  min?: number;
  max?: number;
  pattern?: RegExp;
  patternText?: string;
}

/** A string with limits counted in code points (see charLength). */
function text(rules: TextRules = {}) {
  let schema = z.string();
  const { min, max, pattern } = rules;
  if (min !== undefined) {
    schema = schema.refine((v) => charLength(v) >= min, {
      message: `must be at least ${min} characters`,
    });
  }
  if (max !== undefined) {
    schema = schema.refine((v) => charLength(v) <= max, {
      message: `must be at most ${max} characters`,
    });
  }
  if (pattern !== undefined) {
    schema = schema.refine((v) => pattern.test(v), {
      message: `must match ${pattern.source}${rules.patternText ? ` (${rules.patternText})` : ""}`,
    });
  }
  return schema;
}

function list<T extends z.ZodType>(item: T, max?: number) {
  const schema = z.array(item);
  return max === undefined
    ? schema
    : schema.max(max, { message: `must have at most ${max} items` });
}

const bool = z.boolean();
const strings = (max?: number) => list(z.string(), max);
/** A member whose presence is itself the problem, with a message that says why. */
const forbidden = (message: string) => z.custom<never>(() => false, { message }).optional();
/** Free-form objects: any members, any values. */
const freeForm = z.record(z.string(), z.unknown());

// --- manifest sections ------------------------------------------------------------------------

const metadataSchema = z.strictObject({
  major_version: z.int().optional(),
  minor_version: z.int().optional(),
  schema_version: z.int().optional(),
  min_version: z.int().optional(),
});

const appDirectorySchema = z.strictObject({
  app_directory_categories: strings().optional(),
  use_direct_install: bool.optional(),
  direct_install_url: text({ pattern: HTTP_URL }).optional(),
  installation_landing_page: text({ pattern: HTTP_URL }),
  privacy_policy_url: text({ pattern: HTTP_URL }),
  support_url: text({ pattern: HTTP_URL }),
  support_email: text({ pattern: EMAIL, patternText: "an e-mail address" }),
  supported_languages: strings(),
  pricing: z.string(),
});

const displayInformationSchema = z.strictObject({
  name: text({ min: 1, max: MANIFEST_LIMITS.name }),
  description: text({ max: MANIFEST_LIMITS.description }).optional(),
  long_description: text({ max: MANIFEST_LIMITS.longDescription }).optional(),
  background_color: text({
    pattern: HEX_COLOR,
    patternText: "a hex colour #rgb or #rrggbb",
  }).optional(),
});

const actionSchema = z.strictObject({ name: z.string(), description: z.string() });
const promptSchema = z.strictObject({ title: z.string(), message: z.string() });

const featuresSchema = z.strictObject({
  app_home: z
    .strictObject({
      home_tab_enabled: bool.optional(),
      messages_tab_enabled: bool.optional(),
      messages_tab_read_only_enabled: bool.optional(),
    })
    .optional(),
  agent_view: z
    .strictObject({
      actions: list(actionSchema).optional(),
      agent_description: text({ max: MANIFEST_LIMITS.agentDescription }),
      suggested_prompts: list(promptSchema, MANIFEST_LIMITS.agentSuggestedPrompts).optional(),
    })
    .optional(),
  assistant_view: z
    .strictObject({
      actions: list(actionSchema).optional(),
      assistant_description: z.string(),
      suggested_prompts: list(promptSchema).optional(),
    })
    .optional(),
  bot_user: z
    .strictObject({
      display_name: text({
        min: 1,
        max: MANIFEST_LIMITS.botDisplayName,
        pattern: BOT_DISPLAY_NAME,
        patternText: "letters, digits, spaces, '-', '_', '.' and \"'\" only",
      }),
      always_online: bool.optional(),
    })
    .optional(),
  rich_previews: z
    .strictObject({ is_active: bool.optional(), entity_types: strings().optional() })
    .optional(),
  search: z
    .strictObject({
      search_filters_function_callback_id: z.string().optional(),
      search_function_callback_id: z.string(),
      slackbot_metadata: z
        .strictObject({
          description: z.string().optional(),
          examples: list(z.unknown(), MANIFEST_LIMITS.slackbotExamples).optional(),
          example_query: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
  shortcuts: list(
    z.strictObject({
      name: z.string(),
      callback_id: text({ max: MANIFEST_LIMITS.shortcutCallbackId }),
      description: text({ max: MANIFEST_LIMITS.shortcutDescription }),
      type: z.enum(["message", "global"]),
    }),
    MANIFEST_LIMITS.shortcuts,
  ).optional(),
  slash_commands: list(
    z.strictObject({
      command: text({
        max: MANIFEST_LIMITS.command,
        pattern: SLASH_COMMAND,
        patternText: "a leading /",
      }),
      description: text({ max: MANIFEST_LIMITS.commandDescription }),
      should_escape: bool.optional(),
      url: text({ pattern: HTTPS_URL, patternText: "a full https URL" }).optional(),
      usage_hint: text({ max: MANIFEST_LIMITS.usageHint }).optional(),
    }),
    MANIFEST_LIMITS.slashCommands,
  ).optional(),
  unfurl_domains: list(text({ pattern: UNFURL_DOMAIN }), MANIFEST_LIMITS.unfurlDomains).optional(),
  workflow_steps: list(
    z.strictObject({
      name: text({ max: MANIFEST_LIMITS.workflowStepName }),
      callback_id: text({ max: MANIFEST_LIMITS.workflowStepCallbackId }),
    }),
    MANIFEST_LIMITS.workflowSteps,
  ).optional(),
});

const oauthConfigSchema = z.strictObject({
  pkce_enabled: bool.optional(),
  redirect_urls: strings(MANIFEST_LIMITS.redirectUrls).optional(),
  scopes: z
    .strictObject({
      bot: strings(MANIFEST_LIMITS.scopes).optional(),
      bot_optional: strings(MANIFEST_LIMITS.scopes).optional(),
      user: strings(MANIFEST_LIMITS.scopes).optional(),
      user_optional: strings(MANIFEST_LIMITS.scopes).optional(),
    })
    .optional(),
  token_management_enabled: bool.optional(),
});

const settingsSchema = z.strictObject({
  allowed_ip_address_ranges: list(
    text({ pattern: IPV4_RANGE, patternText: "an IPv4 address or CIDR range" }),
    MANIFEST_LIMITS.allowedIpAddressRanges,
  ).optional(),
  event_subscriptions: z
    .strictObject({
      request_url: text({ pattern: HTTPS_URL, patternText: "a full https URL" }).optional(),
      bot_events: strings(MANIFEST_LIMITS.events).optional(),
      user_events: strings(MANIFEST_LIMITS.events).optional(),
      metadata_subscriptions: list(
        z.strictObject({ app_id: z.string(), event_type: z.string() }),
      ).optional(),
    })
    .optional(),
  incoming_webhooks: z.strictObject({ incoming_webhooks_enabled: bool.optional() }).optional(),
  interactivity: z
    .strictObject({
      is_enabled: bool,
      request_url: text({ pattern: HTTPS_URL, patternText: "a full https URL" }).optional(),
      message_menu_options_url: text({
        pattern: HTTPS_URL,
        patternText: "a full https URL",
      }).optional(),
    })
    .optional(),
  org_deploy_enabled: bool.optional(),
  socket_mode_enabled: bool.optional(),
  token_rotation_enabled: bool.optional(),
  is_hosted: bool.optional(),
  is_mcp_enabled: bool.optional(),
  siws_links: z.strictObject({ initiate_uri: text({ pattern: HTTPS_URL }).optional() }).optional(),
  function_runtime: z.enum(["remote", "svc", "slack"]).optional(),
  hermes_app_type: z.string().optional(),
});

const parameterType = text({
  pattern: PARAMETER_TYPE,
  patternText: "a type such as string or svc#/types/channel_id",
});

const parameterV1 = z.looseObject({
  type: parameterType,
  title: z.string().optional(),
  description: z.string().optional(),
  is_required: bool.optional(),
  hint: z.string().optional(),
  name: z.string().optional(),
});

const parameterV2 = z.looseObject({
  type: parameterType,
  title: z.string().optional(),
  description: z.string().optional(),
  hint: z.string().optional(),
  name: z.string().optional(),
  is_required: forbidden(
    "is_required is a version 1 member; version 2 lists required parameters in `required`",
  ),
});

const parametersV2 = z.strictObject({
  properties: z.record(z.string(), parameterV2),
  required: strings().optional(),
});

function parametersSchema(version: ManifestVersion) {
  if (version === 1) return z.record(z.string(), parameterV1);
  return parametersV2;
}

/** Whether a parameters object is written in the version 2 shape (`properties` + `required`). */
function isV2Parameters(value: unknown): boolean {
  return isPlainObject(value) && isPlainObject(value.properties);
}

/**
 * Workflow parameters: the spec (4.3, workflows) gives them the version 2 shape whatever the
 * manifest's version, yet version 1 manifests written with the flat map exist too; a version 1
 * manifest may use either (checked in manifestRuleProblems). An object with a `properties` object
 * is read as the version 2 shape.
 */
function workflowParametersSchema(version: ManifestVersion): z.ZodType {
  return version === 2 ? parametersV2 : z.unknown();
}

function stepSchema(version: ManifestVersion) {
  return z.strictObject({
    id: z.string(),
    function_id: z.string(),
    inputs: freeForm,
    type:
      version === 2
        ? z.enum(["function", "switch", "conditional"]).optional()
        : forbidden("a step's type exists only in manifest version 2"),
  });
}

const triggerSchema = z.strictObject({
  name: z.string().optional(),
  description: z.string().optional(),
  type: z.string(),
  inputs: z.record(
    z.string(),
    z.strictObject({
      value: z.unknown(),
      initial_value: z.unknown().optional(),
      locked: bool.optional(),
      hidden: bool.optional(),
    }),
  ),
});

const customTypeSchema = z.looseObject({
  type: parameterType,
  title: z.string().optional(),
  description: z.string().optional(),
  is_required: bool.optional(),
  is_hidden: bool.optional(),
  hint: z.string().optional(),
});

const datastoreSchema = z.strictObject({
  primary_key: text({ min: 1 }),
  attributes: z.record(
    z.string(),
    z.looseObject({
      type: text({ min: 1 }),
      items: z
        .looseObject({ type: text({ min: 1 }), properties: z.unknown().optional() })
        .optional(),
      properties: freeForm.optional(),
    }),
  ),
  time_to_live_attribute: z.string().optional(),
});

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

const CUSTOM_ONLY_OPTIONS = [
  "provider_name",
  "authorization_url",
  "token_url",
  "identity_config",
  "authorization_url_extras",
  "use_pkce",
  "token_url_config",
] as const;
const CUSTOM_REQUIRED_OPTIONS = [
  "provider_name",
  "authorization_url",
  "token_url",
  "identity_config",
] as const;

const providerSchema = z.strictObject({
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

const metadataEventObjectSchema = z.strictObject({
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

const metadataEventReferenceSchema = z.strictObject({
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

const mcpServerSchema = z.strictObject({
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

/** The shape rules of a manifest of the given major version (semantic rules are separate). */
export function manifestSchema(version: ManifestVersion) {
  const parameters = parametersSchema(version);
  const workflowParameters = workflowParametersSchema(version);
  return z.strictObject({
    $schema: z.string().optional(),
    _metadata: metadataSchema.optional(),
    app_directory: appDirectorySchema.optional(),
    display_information: displayInformationSchema,
    features: featuresSchema.optional(),
    oauth_config: oauthConfigSchema.optional(),
    settings: settingsSchema.optional(),
    functions: z
      .record(
        z.string(),
        z.strictObject({
          title: text({ max: MANIFEST_LIMITS.functionTitle }),
          description: z.string(),
          input_parameters: parameters,
          output_parameters: parameters,
        }),
      )
      .optional(),
    workflows: z
      .record(
        z.string(),
        z.strictObject({
          title: z.string(),
          description: z.string(),
          input_parameters: workflowParameters.optional(),
          output_parameters: workflowParameters.optional(),
          steps: list(stepSchema(version)),
          // Map (spec) or array (official): checked in manifestRuleProblems.
          suggested_triggers: z.unknown().optional(),
        }),
      )
      .optional(),
    datastores: z.record(z.string(), datastoreSchema).optional(),
    outgoing_domains: list(
      text({ pattern: OUTGOING_DOMAIN }),
      MANIFEST_LIMITS.outgoingDomains,
    ).optional(),
    types: z.record(z.string(), customTypeSchema).optional(),
    // Each event is an object definition or a reference: checked in manifestRuleProblems.
    metadata_events: z.record(z.string(), freeForm).optional(),
    external_auth_providers: z
      .strictObject({ oauth2: z.record(z.string(), providerSchema).optional() })
      .optional(),
    compliance: z
      .strictObject({
        fedramp_authorization: z.string().optional(),
        dod_srg_ilx: z.string().optional(),
        itar_compliant: z.string().optional(),
      })
      .optional(),
    mcp_servers: z.record(z.string(), mcpServerSchema).optional(),
  });
}

const schemaByVersion = { 1: manifestSchema(1), 2: manifestSchema(2) } as const;

// --- issues to problems -----------------------------------------------------------------------

function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<PathSegment, unknown>)[key];
  }
  return current;
}

function article(expected: string): string {
  if (expected === "int") return "an integer";
  if (expected === "record") return "an object";
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function memberName(path: readonly PathSegment[]): string {
  const last = path[path.length - 1];
  return last === undefined ? "manifest" : typeof last === "number" ? `item ${last}` : last;
}

/** Turns zod issues of `schema` for `value` (found at `base` in `doc`) into problems. */
function check(schema: z.ZodType, value: unknown, base: PathSegment[]): Problem[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  const problems: Problem[] = [];
  for (const issue of result.error.issues) {
    const rel = issue.path.map((s) => (typeof s === "number" ? s : String(s)));
    const path = [...base, ...rel];
    const actual = valueAt(value, rel);
    const name = memberName(path);
    switch (issue.code) {
      case "unrecognized_keys":
        for (const key of issue.keys) {
          problems.push({ message: `unknown member ${key}`, pointer: toPointer([...path, key]) });
        }
        break;
      case "invalid_type":
        problems.push({
          message:
            actual === undefined
              ? `${name} is required`
              : `${name} must be ${article(issue.expected)}, not ${describeType(actual)}`,
          pointer: toPointer(path),
        });
        break;
      case "invalid_value":
        problems.push({
          message: `${name} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`,
          pointer: toPointer(path),
        });
        break;
      case "invalid_union":
        problems.push({
          message: `${name} has an unsupported type ${describeType(actual)}`,
          pointer: toPointer(path),
        });
        break;
      default:
        problems.push({ message: `${name} ${issue.message}`, pointer: toPointer(path) });
    }
  }
  return problems;
}

// --- rules across members ---------------------------------------------------------------------

function obj(value: unknown): Record<string, unknown> | undefined {
  return isPlainObject(value) ? value : undefined;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The manifest's major version, and a problem when `_metadata.major_version` is neither 1 nor 2. */
function versionOf(doc: Record<string, unknown>): {
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

function mapSizeProblems(doc: Record<string, unknown>): Problem[] {
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

function settingsProblems(doc: Record<string, unknown>, version: ManifestVersion): Problem[] {
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

function scopeProblems(doc: Record<string, unknown>): Problem[] {
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

function functionAndWorkflowProblems(
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

function metadataEventProblems(doc: Record<string, unknown>): Problem[] {
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

function authProviderProblems(doc: Record<string, unknown>): Problem[] {
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

/**
 * Every problem of an app manifest ([] = valid): shape and limits of its version, then the rules
 * across members. Pointers are RFC 6901 JSON Pointers into `doc`.
 */
export function validateManifest(doc: unknown): Problem[] {
  if (!isPlainObject(doc)) {
    return [{ message: `manifest must be an object, not ${describeType(doc)}`, pointer: "" }];
  }
  const { version, problems } = versionOf(doc);
  return [
    ...problems,
    ...check(schemaByVersion[version], doc, []),
    ...mapSizeProblems(doc),
    ...settingsProblems(doc, version),
    ...scopeProblems(doc),
    ...functionAndWorkflowProblems(doc, version),
    ...metadataEventProblems(doc),
    ...authProviderProblems(doc),
  ];
}
