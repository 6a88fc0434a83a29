import type { TableDescription } from "@aws-sdk/client-dynamodb";
import { DUE_INDEX, POLL_INDEX } from "#lib/store/table";

/**
 * The upgrades a deploy runs, in order, and records in the stack (the `StatuspilotMigrations`
 * output, written back through the `migrations` stage parameter). A stage deployed by an older
 * release, by hand or by this command, runs the ones it lacks; a new stage has nothing to
 * upgrade and records them all at its first deploy.
 *
 * - `index-projections`: the `due` and `poll` indexes project only what their queries read.
 *   DynamoDB cannot change an index's projection and CloudFormation changes one index per
 *   update, so a table from before gets there in steps (`indexStep`), each an osls deploy of
 *   this release with the stage parameter `indexUpgrade` (infra/table-resource.ts). Each step is
 *   read from the table itself, so a deploy stopped between two resumes at the right one.
 * - `owner-bound-seals`: every secret sealed before owners were bound is sealed again under its
 *   owner (`statuspilot migrate-seals`, run here with the same code), between a deploy that still
 *   opens old values (`legacySealedValues=true`) and one that no longer may (`false`).
 * - `packed-items`: nothing to rewrite (items are packed at their next write), but the release
 *   before it cannot read a packed item: recorded, so that deploying that release again is
 *   refused (a release refuses any recorded upgrade it does not know).
 */
export const MIGRATIONS = ["index-projections", "owner-bound-seals", "packed-items"] as const;
export type Migration = (typeof MIGRATIONS)[number];

/** The record the stack holds ("none" when empty). */
export const recordOf = (applied: readonly string[]): string =>
  applied.length === 0 ? "none" : applied.join(",");

export function recordedMigrations(outputs: Record<string, string> | undefined): string[] {
  const value = outputs?.StatuspilotMigrations;
  if (value === undefined || value === "none" || value === "") return [];
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** Upgrades the stack's record names that this release does not know (a newer one ran them). */
export const unknownMigrations = (recorded: readonly string[]): string[] =>
  recorded.filter((m) => !(MIGRATIONS as readonly string[]).includes(m));

/** The next step of the index upgrade for this table, as the `indexUpgrade` parameter names it. */
export type IndexStep = "omit-due" | "legacy-poll" | "omit-poll";

/**
 * What the table needs next: `wait` while an index is being built or removed; a step; or
 * `done` when both indexes are today's (or the table does not exist yet). A missing index that
 * today's template adds back (the last step) is `done` too: the ordinary deploy adds it.
 */
export function indexStep(table: TableDescription | undefined): IndexStep | "wait" | "done" {
  if (!table) return "done";
  const indexes = table.GlobalSecondaryIndexes ?? [];
  if (indexes.some((i) => i.IndexStatus !== undefined && i.IndexStatus !== "ACTIVE")) return "wait";
  const due = indexes.find((i) => i.IndexName === DUE_INDEX);
  const poll = indexes.find((i) => i.IndexName === POLL_INDEX);
  const all = (i: typeof due) => i?.Projection?.ProjectionType === "ALL";
  if (all(due)) return "omit-due";
  if (!due) return all(poll) ? "legacy-poll" : "done";
  if (all(poll)) return "omit-poll";
  return "done";
}
