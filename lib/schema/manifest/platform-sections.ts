import * as z from "zod";
import { isPlainObject } from "../problems";
import {
  bool,
  forbidden,
  freeForm,
  type ManifestVersion,
  PARAMETER_TYPE,
  strings,
  text,
} from "./blocks";

/** The platform sections: function parameters, workflow steps and triggers, types, datastores. */

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

export const parametersV2 = z.strictObject({
  properties: z.record(z.string(), parameterV2),
  required: strings().optional(),
});

export function parametersSchema(version: ManifestVersion) {
  if (version === 1) return z.record(z.string(), parameterV1);
  return parametersV2;
}

/** Whether a parameters object is written in the version 2 shape (`properties` + `required`). */
export function isV2Parameters(value: unknown): boolean {
  return isPlainObject(value) && isPlainObject(value.properties);
}

/**
 * Workflow parameters: the spec (4.3, workflows) gives them the version 2 shape whatever the
 * manifest's version, yet version 1 manifests written with the flat map exist too; a version 1
 * manifest may use either (checked in manifestRuleProblems). An object with a `properties` object
 * is read as the version 2 shape.
 */
export function workflowParametersSchema(version: ManifestVersion): z.ZodType {
  return version === 2 ? parametersV2 : z.unknown();
}

export function stepSchema(version: ManifestVersion) {
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

export const triggerSchema = z.strictObject({
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

export const customTypeSchema = z.looseObject({
  type: parameterType,
  title: z.string().optional(),
  description: z.string().optional(),
  is_required: bool.optional(),
  is_hidden: bool.optional(),
  hint: z.string().optional(),
});

export const datastoreSchema = z.strictObject({
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
