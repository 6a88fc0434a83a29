import { cloudFormationTableResource, DUE_INDEX, POLL_INDEX } from "#lib/store/table";

/** The table's logical id in the CloudFormation stack; IAM statements refer to it. */
const OSLS_TABLE_NAME = ["$", "{self:custom.tableName}"].join("");

export const TABLE_LOGICAL_ID = "StatusTable";

/**
 * The stage parameter `indexUpgrade` (lib/cli/deploy/migrations.ts): a table whose indexes
 * project every attribute (as before the indexes were narrowed) reaches today's indexes one
 * index change per deploy, as CloudFormation requires. `omit-due` drops `due` and keeps `poll`
 * projecting all; `legacy-poll` adds `due` back as it is now, `poll` still all; `omit-poll`
 * drops `poll`; `none` (the default) is today's table.
 */
export const INDEX_UPGRADE_STEPS = ["omit-due", "legacy-poll", "omit-poll"] as const;
const UPGRADE = ["$", "{param:indexUpgrade}"].join("");
const upgradeIs = (step: string) => ({ "Fn::Equals": [UPGRADE, step] });
const CONDITIONS = {
  DueIndexOmitted: upgradeIs("omit-due"),
  PollIndexLegacy: { "Fn::Or": [upgradeIs("omit-due"), upgradeIs("legacy-poll")] },
  PollIndexOmitted: upgradeIs("omit-poll"),
};
const NO_VALUE = { Ref: "AWS::NoValue" };

type Index = { IndexName: string; KeySchema: Array<{ AttributeName: string }> };

/** The table's properties with each index (and its key attributes) under the upgrade's conditions. */
function withIndexUpgrade(properties: Record<string, unknown>): Record<string, unknown> {
  const indexes = properties.GlobalSecondaryIndexes as Index[];
  const omittedBy: Record<string, string> = {
    [DUE_INDEX]: "DueIndexOmitted",
    [POLL_INDEX]: "PollIndexOmitted",
  };
  const conditionOfAttribute = new Map(
    indexes.flatMap((index) =>
      index.KeySchema.map((key) => [key.AttributeName, omittedBy[index.IndexName]] as const),
    ),
  );
  const attributes = (properties.AttributeDefinitions as Array<{ AttributeName: string }>).map(
    (attribute) => {
      const omitted = conditionOfAttribute.get(attribute.AttributeName);
      return omitted ? { "Fn::If": [omitted, NO_VALUE, attribute] } : attribute;
    },
  );
  const upgraded = indexes.map((index) => {
    const current =
      index.IndexName === POLL_INDEX
        ? {
            ...index,
            Projection: {
              "Fn::If": [
                "PollIndexLegacy",
                { ProjectionType: "ALL" },
                (index as { Projection?: unknown }).Projection,
              ],
            },
          }
        : index;
    const omitted = omittedBy[index.IndexName];
    return omitted ? { "Fn::If": [omitted, NO_VALUE, current] } : current;
  });
  return { ...properties, AttributeDefinitions: attributes, GlobalSecondaryIndexes: upgraded };
}

/**
 * The `resources:` fragment serverless.yml includes: lib/store/table.ts's single definition,
 * plus what only AWS has (point-in-time recovery, deletion protection).
 */
export function renderTableFragment(): {
  Conditions: Record<string, unknown>;
  Resources: Record<string, unknown>;
} {
  // An osls variable, resolved when serverless.yml includes this fragment.
  const table = cloudFormationTableResource(OSLS_TABLE_NAME);
  return {
    Conditions: CONDITIONS,
    Resources: {
      [TABLE_LOGICAL_ID]: {
        ...table,
        DeletionPolicy: "Retain",
        UpdateReplacePolicy: "Retain",
        Properties: {
          ...withIndexUpgrade(table.Properties),
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
