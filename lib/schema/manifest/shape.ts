import * as z from "zod";
import {
  appDirectorySchema,
  displayInformationSchema,
  featuresSchema,
  metadataSchema,
  oauthConfigSchema,
  settingsSchema,
} from "./app-sections";
import {
  freeForm,
  list,
  MANIFEST_LIMITS,
  type ManifestVersion,
  OUTGOING_DOMAIN,
  text,
} from "./blocks";
import { mcpServerSchema, providerSchema } from "./integration-sections";
import {
  customTypeSchema,
  datastoreSchema,
  parametersSchema,
  stepSchema,
  workflowParametersSchema,
} from "./platform-sections";

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

export const schemaByVersion = { 1: manifestSchema(1), 2: manifestSchema(2) } as const;
