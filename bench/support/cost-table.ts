import {
  IDLE_RECEIVES_PER_DAY,
  PLATFORM_LOG_BYTES,
  REALISTIC_FETCH_MS,
  TENANTS_PER_POLL,
} from "./cost-model";
import { pushTable } from "./cost-push-table";
import { type CostResult, icsTotalsOf } from "./cost-result";
import { ISSUE12_TARGETS } from "./cost-scale";
import { formatTable, round } from "./stats";

/** The cost bench's result as the tables and lines `bench` prints. */
export function costTable(r: CostResult): string {
  const both = (x: string) => [x, x];
  const rows: string[][] = [
    [
      "users.profile.set calls",
      String(r.profileSetsPerUserDay),
      ...both(String(r.poll.profileSetsPerUserDay)),
    ],
    [
      "  per busy block (incl. explicit clears)",
      String(r.setsPerBusyBlock),
      ...both("2 (set + clear)"),
    ],
    ["users.profile.get calls (read before write)", String(r.profileGetsPerUserDay), ...both("0")],
    [
      "health: notice runs, views.publish, chat.postMessage (< 1)",
      String(r.healthCallsPerUserDay),
      ...both("0"),
    ],
    [
      "DynamoDB reads (read units)",
      `${r.readsPerUserDay} (${r.readUnitsPerUserDay})`,
      ...both("0"),
    ],
    [
      "DynamoDB writes (write units, of them indexes')",
      `${r.writesPerUserDay} (${r.writeUnitsPerUserDay}, ${r.indexWriteUnitsPerUserDay})`,
      ...both("0"),
    ],
    [
      "queue messages (SQS requests)",
      `${r.queueMessagesPerUserDay} (${r.sqsRequestsPerUserDay})`,
      ...both("0"),
    ],
    [
      "KMS requests (kept opened per instance)",
      `${r.kmsRequestsPerUserDay} (${Object.entries(r.kmsByFunction)
        .filter(([, k]) => k.encrypt + k.decrypt > 0)
        .map(([fn, k]) => `${fn} ${round(k.decrypt + k.encrypt, 2)}`)
        .join(", ")}; ${r.kmsRequestsUncachedPerUserDay} without the cache)`,
      ...both("0"),
    ],
    [
      "Lambda invocations, one per message",
      String(r.invocationsTotalPerUserDay),
      "1440",
      String(r.multiPoll.invocationsPerUserDay),
    ],
    [
      "Lambda invocations, SQS-batched",
      String(r.invocationsBatchedPerUserDay),
      "1440",
      String(r.multiPoll.invocationsPerUserDay),
    ],
    [
      "Lambda GB-seconds",
      String(r.gbSecondsPerUserDay),
      ...both(`${r.poll.gbSecondsPerUserDay} (${r.poll.runMs} ms a fetch)`),
    ],
    [
      "CloudWatch Logs bytes",
      String(r.logBytesPerUserDay),
      String(1440 * PLATFORM_LOG_BYTES),
      String(r.multiPoll.invocationsPerUserDay * PLATFORM_LOG_BYTES),
    ],
    [
      "US$ per user-month",
      String(r.usdPerUserMonth),
      String(r.poll.usdPerUserMonth),
      String(r.multiPoll.usdPerUserMonth),
    ],
    [
      `  with ${REALISTIC_FETCH_MS} ms billed per feed fetch`,
      String(r.usdPerUserMonthRealisticFetch),
      String(r.poll.usdPerUserMonthRealisticFetch),
      String(r.multiPoll.usdPerUserMonthRealisticFetch),
    ],
  ];
  const total = r.invocationsBatchedPerUserDay;
  const byFn = formatTable(
    "Lambda invocations per user-day by function",
    ["function", "one per message", "batched", "share", "what drives them"],
    r.functions.map((f) => [
      f.fn,
      String(f.unbatched),
      String(f.batched),
      `${Math.round((f.batched / total) * 100)}%`,
      f.drivers,
    ]),
  );
  const dynamo = formatTable(
    "DynamoDB per user-day by function, command and item (simulated ticks and polls as run), costliest first",
    ["source", "reads", "read units", "writes", "write units"],
    r.dynamoBySource
      .slice(0, 40)
      .map((d) => [
        d.source,
        String(d.reads),
        String(d.readUnits),
        String(d.writes),
        String(d.writeUnits),
      ]),
  );
  const top = [...r.functions].sort((a, b) => b.batched - a.batched).slice(0, 3);
  const usd = Object.entries(r.usdBreakdown)
    .map(([k, v]) => `${k} $${v}`)
    .join(", ");
  const goal = r.fewerInvocations >= 50 ? "met" : "NOT met";
  return [
    formatTable(
      `calls and cost per user-day: ${r.users} users × ${r.days} days in ${r.workers} processes (${r.busyBlocksPerUserDay} busy blocks per user-day), local stack on a simulated clock; deployment of ${r.deploymentUsers} users`,
      [
        "per user-day",
        "statuspilot",
        "poll every minute",
        `poll every minute, ${TENANTS_PER_POLL} users a run`,
      ],
      rows,
    ),
    byFn,
    dynamo,
    `Lambda invocations: ${r.fewerInvocations}× fewer than polling (goal ≥ 50×: ${goal}); most are ${top.map((f) => `${f.fn} ${f.batched}`).join(", ")}; with the sync queue's batch size at 10: ${r.invocationsBatchedAtSyncBatch10} (${round(1440 / r.invocationsBatchedAtSyncBatch10, 1)}× fewer)`,
    `sets per busy block ${r.setsPerBusyBlock} (goal ≤ 1); transition messages per busy block ${r.transitionsPerBusyBlock}; a poll bot that sets every minute while busy makes ${r.poll.profileSetsEveryMinutePerUserDay} sets a day`,
    `Do Not Disturb on for meetings and focus (every user): per busy block ${
      Object.entries(r.dndCallsPerBusyBlock)
        .map(([method, v]) => `${method} ${v}`)
        .join(", ") || "no DND call"
    } (goal: dnd.setSnooze ≤ 1); the US$ per user-month above includes them`,
    `statuspilot US$ per user-month by service: ${usd}; index entries written per user-day: ${Object.entries(
      r.indexWritesPerUserDay,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
    "",
    sizesTable(r),
    "",
    `model: SQS event sources from serverless.yml (sync batch ${r.sqs.syncWorker.batchSize}, transition batch ${r.sqs.transitionWorker.batchSize}, batching window ${r.sqs.syncWorker.windowS} s / ${r.sqs.transitionWorker.windowS} s); a poll's sync messages for the deployment arrive together and fill whole batches; transitions, pushes and events are each alone; tick and poll once per deployment (an idle tick ${r.idleRunReads} reads, a poll ${r.pollRunReads} a run); SQS: a send per message (the tick's ten to a request, scaled to the deployment), a receive and a delete per batch, ${IDLE_RECEIVES_PER_DAY} empty long-poll receives a day per deployment (5 pollers a queue: a maximum concurrency keeps AWS from scaling an idle source down to 2)`,
    `GB-s: handler time measured here one message at a time (a loaded machine overstates it), plus module init at each cold start (${r.coldStartsPerDeploymentDay} a day, counted on the simulated users' invocations: an instance idle 15 min is gone, tick and poll stay warm; a larger deployment has fewer gaps, scale-out not modelled); the poll bots' runs are warm and keep what they set in memory (no database, no profile reads); logs: the handlers' lines at INFO plus Lambda's START/END/REPORT (${PLATFORM_LOG_BYTES} bytes) per invocation, the bots' platform lines only`,
    "prices (us-east-1 list, on-demand): Lambda arm64 $0.20/M requests + $0.0000133334/GB-s (each function at serverless.yml's memory: 512 MB, the transition worker 1,024 MB); DynamoDB $0.125/M read units, $0.625/M write units; SQS $0.40/M requests; HTTP API $1.00/M; KMS $0.03/10k (the Decrypt and Encrypt requests counted through the vault, each function instance keeping what it opened for 6 h, addresses 24 h, emptied at each cold start) and $1 a month for the key, shared by the deployment; CloudWatch Logs $0.50/GB ingested",
    `(simulation ${r.simulationS} s in the slowest process)`,
    ...(r.push ? ["", pushTable(r.push, icsTotalsOf(r))] : []),
  ].join("\n");
}

const users = (n: number) => n.toLocaleString("en-US");

/** The same run priced at other deployment sizes, and where issue 12's targets are met. */
export function sizesTable(r: CostResult): string {
  const floor = r.perUserFloor;
  const table = formatTable(
    "the same run by deployment size N: each user's own work plus the deployment's charges (the KMS key, the idle long polls, the tick's and the poll's runs) shared by N",
    [
      "deployment users",
      "US$ per user-month",
      "of it the deployment's",
      "SQS requests per user-day",
      "DynamoDB reads per user-day",
    ],
    [
      ...r.byDeploymentSize.map((s) => [
        s.users === r.deploymentUsers ? `${users(s.users)} (headline)` : users(s.users),
        String(s.usdPerUserMonth),
        String(s.usdPerDeploymentPart),
        String(s.sqsRequestsPerUserDay),
        String(s.readsPerUserDay),
      ]),
      [
        "as N grows",
        String(floor.usdPerUserMonth),
        "0",
        String(floor.sqsRequestsPerUserDay),
        String(floor.readsPerUserDay),
      ],
    ],
  );
  const from = (n: number | null) => (n === null ? "at no size" : `from ${users(n)} users`);
  const fixed = r.fixedChargesPerUserMonth;
  return [
    table,
    `issue 12's targets (the smallest N that meets each): US$ ≤ ${ISSUE12_TARGETS.usdPerUserMonth} per user-month ${from(r.targetsMetFromUsers.usd)}, SQS ≤ ${ISSUE12_TARGETS.sqsRequestsPerUserDay} requests per user-day ${from(r.targetsMetFromUsers.sqs)}; as N grows, each user's own work alone: $${floor.usdPerUserMonth} per user-month, ${floor.sqsRequestsPerUserDay} SQS requests and ${floor.readsPerUserDay} DynamoDB reads per user-day`,
    `fixed charges at ${users(r.deploymentUsers)} users: $${fixed.total} per user-month before any user does anything (KMS key $${fixed.kmsKey}, idle long polls $${fixed.idleReceives}, the tick's and the poll's runs $${fixed.scheduleRuns})`,
    `cold starts (module init GB-s, a cold instance's KMS requests) are counted on the simulated users and held per user as measured at ${users(r.deploymentUsers)} users at every size: an upper bound for larger deployments`,
  ].join("\n");
}
