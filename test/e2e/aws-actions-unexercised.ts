/**
 * The grants of each role that no flow of test/e2e/aws-actions.test.ts calls, each with the
 * reason it is still needed. A grant neither called there nor listed here fails that test.
 */

/** A grant no flow calls, and why it is still needed. `on` omitted: every resource. */
export interface Unexercised {
  role: string | "*";
  action: string;
  on?: string;
  reason: string;
}

const RECONCILERS = [
  "ServiceEventsRole",
  "AdminOooRole",
  "AdminUsersRole",
  "WebRole",
  "WebCalendarsRole",
  "SyncWorkerRole",
  "TransitionWorkerRole",
];
export const NOT_CALLED_HERE: Unexercised[] = [
  ...["WebRole", "SyncWorkerRole"].flatMap((role) =>
    ["kms:Encrypt", "kms:Decrypt"].map((action) => ({
      role,
      action,
      on: "calendar_refresh_token",
      reason:
        "no calendar is connected through a provider's API in these flows: the Google connect, read and renewal run in test/e2e/google-*.test.ts",
    })),
  ),
  {
    role: "PollRole",
    action: "dynamodb:BatchGetItem",
    reason:
      "only a profile written before its sources had their own attribute is read whole by the poll (lib/store/dynamo-store.ts usersToPoll); these flows write every profile anew",
  },
  {
    role: "TickRole",
    action: "sqs:SendMessage",
    on: "statuspilot-local-sync",
    reason:
      "the tick queues the push upkeeps due; no calendar is connected through a provider's API in these flows: the renewals run in test/e2e/google-lifecycle.test.ts",
  },
  {
    role: "SyncWorkerRole",
    action: "sqs:SendMessage",
    on: "statuspilot-local-sync",
    reason:
      "the sync worker queues on its own queue the upkeep a check asks for and the read after a new channel; no calendar is connected through a provider's API in these flows: test/e2e/aws-actions-google.test.ts records those calls",
  },
  {
    role: "*",
    action: "logs:CreateLogStream",
    reason: "the Lambda service writes the function's log stream with its role",
  },
  {
    role: "*",
    action: "logs:PutLogEvents",
    reason: "the Lambda service writes the function's log stream with its role",
  },
  ...["ReceiveMessage", "DeleteMessage", "GetQueueAttributes", "ChangeMessageVisibility"].flatMap(
    (a) =>
      ["SyncWorkerRole", "TransitionWorkerRole"].map((role) => ({
        role,
        action: `sqs:${a}`,
        reason: "the SQS event source mapping polls, deletes and extends with the worker's role",
      })),
  ),
  {
    role: "SealClientSecretRole",
    action: "kms:Encrypt",
    on: "oauth_client_secret",
    reason:
      "the stack seals the app's client secret at deploy, not a function of the local stack: test/integration/infra/deploy-stack.test.ts runs that code",
  },
  {
    role: "*",
    action: "ssm:GetParameter",
    reason:
      "the local stack holds the signing secret, OAuth client secret and web key in clear; on AWS they are read from SSM at cold start",
  },
  ...RECONCILERS.flatMap((role) => [
    {
      role,
      action: "kms:Decrypt",
      on: "refresh_token",
      reason:
        "token rotation is off in these flows: renewing a rotating token opens the refresh token (test/integration/app/token-rotation.test.ts)",
    },
    {
      role,
      action: "kms:Encrypt",
      on: "refresh_token",
      reason: "token rotation is off in these flows: a renewed pair is sealed",
    },
    {
      role,
      action: "kms:Decrypt",
      on: "oauth_client_secret",
      reason:
        "the local stack holds the OAuth client secret in clear; on AWS a renewal opens OAUTH_CLIENT_SECRET_SEALED",
    },
  ]),
  ...["ServiceEventsRole", "AdminOooRole", "TransitionWorkerRole", "WebCalendarsRole"].map(
    (role) => ({
      role,
      action: "kms:Encrypt",
      on: "access_token",
      reason: "only renewing a rotating token seals an access token here (rotation is off)",
    }),
  ),
  {
    role: "SyncWorkerRole",
    action: "kms:Encrypt",
    on: "access_token",
    reason: "only renewing a rotating token seals an access token here (rotation is off)",
  },
  {
    role: "SyncWorkerRole",
    action: "kms:Encrypt",
    on: "source_url",
    reason:
      "seals a calendar address stored in clear before addresses were sealed (test/integration/app/sealed-to-owner.test.ts)",
  },
  // Every reconciler: a reconcile that writes a status first takes the shared rate budget
  // (UpdateItem) and opens the token; saving a status whose next change comes before the next
  // tick, or a retry, queues a transition. Whether a flow here gives a function such a
  // reconcile depends on timing, so these are listed for every reconciler.
  ...RECONCILERS.flatMap((role) => [
    {
      role,
      action: "sqs:SendMessage",
      on: "statuspilot-local-transition",
      reason: "a reconcile queues a transition due before the next tick, or a retry",
    },
    {
      role,
      action: "dynamodb:UpdateItem",
      on: "table",
      reason: "the shared rate budget, taken before a reconcile's status write",
    },
    {
      role,
      action: "kms:Decrypt",
      on: "access_token",
      reason: "a reconcile opens the token when it reads or writes the status",
    },
  ]),
  {
    role: "ServiceEventsRole",
    action: "dynamodb:Scan",
    on: "table",
    reason: "app_uninstalled finds the team's users (test/integration/app/app-removal.test.ts)",
  },
  {
    role: "TransitionWorkerRole",
    action: "dynamodb:GetItem",
    on: "table",
    reason:
      "records a user_change deferred to the queue (reads the status item) and, after an uninstall's grace, checks the user is still there",
  },
  {
    role: "ServiceEventsRole",
    action: "dynamodb:DeleteItem",
    on: "table",
    reason:
      "Powertools idempotency deletes an event's in-progress record (IDEMPOTENCY#… only) when its work throws, so the service's retry runs it (test/integration/functions/idempotency.test.ts)",
  },
  {
    role: "WebCalendarsRole",
    action: "sqs:SendMessage",
    on: "statuspilot-local-sync",
    reason:
      "a calendar whose first read cannot be applied in time is saved and its sync queued (test/integration/web/calendar-limits.test.ts)",
  },
  {
    role: "TransitionWorkerRole",
    action: "dynamodb:DeleteItem",
    reason:
      "deletes a user's items 7 days after an uninstall (test/integration/app/app-removal.test.ts)",
  },
  // The upgrade window's grant (stage parameter legacySealedValues, on by default): every role
  // that opens secrets may open a value sealed before owners were bound.
  ...RECONCILERS.map((role) => ({
    role,
    action: "kms:Decrypt",
    on: "statuspilot-user-token",
    reason:
      "opens a value sealed before owners were bound, until statuspilot migrate-seals has sealed it again; the local stack migrates its state at start, so no flow here holds one (test/integration/app/seal-migration.test.ts)",
  })),
];
