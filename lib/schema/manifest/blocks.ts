import * as z from "zod";
import { charLength } from "../problems";

/*
 * The building blocks every manifest section is made of: the patterns and limits of the spec
 * (4.3, 8.3), and string, list and flag schemas whose messages say what is wrong.
 */

export type ManifestVersion = 1 | 2;

export const HTTP_URL = /^https?:\/\//;
export const HTTPS_URL = /^https:\/\//;
export const HEX_COLOR = /^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/;
// Spec, exactly.
export const OUTGOING_DOMAIN = /^(?![.-])([-a-zA-Z0-9.])+([a-zA-Z0-9])$/;
export const METADATA_REFERENCE = /^(?!slack)(\w*#)\/(\w+)\/(\w+)$/;
// Official: an unfurl domain has the outgoing-domain shape.
export const UNFURL_DOMAIN = OUTGOING_DOMAIN;
export const SLASH_COMMAND = /^\//;
export const BOT_DISPLAY_NAME = /^[\p{L}\p{N}\p{M} ._'-]+$/u;
// Official: the HTML5 e-mail address rule.
export const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
export const IPV4_RANGE =
  /^(([0-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])\.){3}([0-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])(\/(3[0-2]|[1-2][0-9]|[0-9]))?$/;
export const ACCOUNT_IDENTIFIER = /^https:\/\/|^\$\.(.)+/;
// Plain types, or built-in (`svc#/types/...`, `slack#/types/...`) and custom (`#/types/...`) ones.
export const PARAMETER_TYPE =
  /^(?:integer|number|boolean|string|object|array)$|^(?:svc|slack)?#\/types\/[\w./-]+$/;
export const CALLBACK_ID = /^[a-z0-9_]+$/;

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

export interface TextRules {
  min?: number;
  max?: number;
  pattern?: RegExp;
  patternText?: string;
}

/** A string with limits counted in code points (see charLength). */
export function text(rules: TextRules = {}) {
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

export function list<T extends z.ZodType>(item: T, max?: number) {
  const schema = z.array(item);
  return max === undefined
    ? schema
    : schema.max(max, { message: `must have at most ${max} items` });
}

export const bool = z.boolean();
export const strings = (max?: number) => list(z.string(), max);
/** A member whose presence is itself the problem, with a message that says why. */
export const forbidden = (message: string) => z.custom<never>(() => false, { message }).optional();
/** Free-form objects: any members, any values. */
export const freeForm = z.record(z.string(), z.unknown());
