import { cloudFormationTableResource } from "#lib/store/table";

/** The table's logical id in the CloudFormation stack; IAM statements refer to it. */
const OSLS_TABLE_NAME = ["$", "{self:custom.tableName}"].join("");

export const TABLE_LOGICAL_ID = "StatusTable";

/**
 * The `resources:` fragment serverless.yml includes: lib/store/table.ts's single definition,
 * plus what only AWS has (point-in-time recovery, deletion protection).
 */
export function renderTableFragment(): { Resources: Record<string, unknown> } {
  // An osls variable, resolved when serverless.yml includes this fragment.
  const table = cloudFormationTableResource(OSLS_TABLE_NAME);
  return {
    Resources: {
      [TABLE_LOGICAL_ID]: {
        ...table,
        DeletionPolicy: "Retain",
        UpdateReplacePolicy: "Retain",
        Properties: {
          ...table.Properties,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          // A delete of the table (or of the stack, with a replacement) is refused until an
          // operator turns this off on purpose.
          DeletionProtectionEnabled: true,
          SSESpecification: { SSEEnabled: true },
        },
      },
    },
  };
}

/**
 * The fragment as JSON the way the formatter prints it (an array of names on one line, as the
 * indexes' projected attributes are), so the committed file passes `biome ci` as generated.
 */
export const renderTableJson = (): string =>
  `${JSON.stringify(renderTableFragment(), null, 2).replace(
    /\[\s*("[^"\n]*"(?:,\s*"[^"\n]*")*)\s*\]/g,
    (_all, names: string) => `[${names.split(/,\s*/).join(", ")}]`,
  )}\n`;
