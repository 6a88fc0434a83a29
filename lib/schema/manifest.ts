import {
  authProviderProblems,
  functionAndWorkflowProblems,
  mapSizeProblems,
  metadataEventProblems,
  scopeProblems,
  settingsProblems,
  versionOf,
} from "./manifest/cross-member-rules";
import { check } from "./manifest/issues";
import { schemaByVersion } from "./manifest/shape";
import { describeType, isPlainObject, type Problem } from "./problems";

export { ManifestInvalidError, ManifestParseError } from "./errors";
export { MANIFEST_LIMITS, type ManifestVersion } from "./manifest/blocks";
export { parseManifestText } from "./manifest/parse";
export { manifestSchema } from "./manifest/shape";

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
 *
 * Layout (manifest/): parse.ts reads JSON or YAML text; blocks.ts holds the patterns, limits and
 * string/list helpers; app-sections.ts, platform-sections.ts and integration-sections.ts hold the
 * shape of each member; shape.ts assembles them per version; issues.ts turns zod issues into
 * problems; cross-member-rules.ts holds the rules a shape cannot say. This file is the entry.
 */

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
