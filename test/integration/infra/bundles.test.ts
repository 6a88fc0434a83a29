import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BundleReport, buildBundles, functionEntries } from "#infra/build";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const run = promisify(execFile);
let outDir = "";
let reports = new Map<string, BundleReport>();
const packagesOf = (name: string) => reports.get(name)?.packages ?? [];
const inputsOf = (name: string) => Object.keys(reports.get(name)?.inputs ?? {});
const KiB = 1024;

describe("function bundles", () => {
  beforeAll(async () => {
    // Prepare
    outDir = await mkdtemp(path.join(tmpdir(), "statuspilot-bundles-"));
    reports = new Map((await buildBundles(repoRoot, outDir)).map((r) => [r.name, r]));
  }, 60_000);
  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it("keeps ical.js and the zone tables in the sync worker and the add-calendar function only", () => {
    // Adding a calendar expands its first read, so the page that confirms it shows its events
    // (issue 28 item 6); that route has its own function, and everything else leaves ICS to the sync.
    for (const [name] of reports) {
      const calendar = packagesOf(name).filter((p) => p === "ical.js" || p === "windows-iana");
      const expands = name === "syncWorker" || name === "webCalendars";
      expect(calendar, name).toEqual(expands ? ["ical.js", "windows-iana"] : []);
    }
  });

  it("gives the settings page its zone arithmetic without the calendar engine", () => {
    // Issue 24 took ical.js out of the web bundle (78 KB); the one route that expands a feed
    // (adding a calendar, issue 28 item 6) is the webCalendars function's, which carries it.
    expect(inputsOf("web")).toContain("lib/calendar/zones.ts");
    expect(inputsOf("web")).not.toContain("lib/calendar/expand.ts");
    expect(inputsOf("webCalendars")).toContain("lib/calendar/expand.ts");
    const bytes = reports.get("web")?.bytes ?? 0;
    expect(bytes).toBeGreaterThan(100 * KiB);
    // About 918 KiB: the rules editor and the standard emoji table (names to characters) came
    // after ical.js left; the engine alone was about 185 KiB.
    expect(bytes).toBeLessThanOrEqual(960 * KiB);
  });

  it("leaves KMS, SSM and the service client out of the tick and the poll, and SSM out of the transition worker", () => {
    for (const name of ["tick", "poll"]) {
      expect(packagesOf(name), name).not.toContain("@aws-sdk/client-kms");
      expect(packagesOf(name), name).not.toContain("@aws-sdk/client-ssm");
      expect(inputsOf(name), name).not.toContain("lib/service/client.ts");
    }
    expect(inputsOf("calendarHooks")).not.toContain("lib/service/client.ts");
    // The hooks open no secret (a push is authenticated by its channel token).
    expect(packagesOf("calendarHooks")).not.toContain("@aws-sdk/client-kms");
    // Nor the transition worker: its Home tab's one-time settings links (issue 26) are stored
    // grants, not signed with the web key (SSM's client was 170 KiB of its bundle).
    expect(packagesOf("transitionWorker")).not.toContain("@aws-sdk/client-ssm");
  });

  it("keeps yaml and the manifest schema out of every function: none pushes manifests", () => {
    expect(inputsOf("transitionWorker")).toContain("lib/service/client.ts");
    for (const [name] of reports) {
      expect(packagesOf(name), name).not.toContain("yaml");
      expect(inputsOf(name), name).not.toContain("lib/schema/manifest.ts");
      expect(inputsOf(name), name).not.toContain("lib/service/manifest-client.ts");
    }
  });

  it("bundles zod without its 40-odd locales (a named `z` import kept them all)", () => {
    for (const [name] of reports) {
      const locales = inputsOf(name).filter((input) =>
        /node_modules\/zod\/.*\/locales\/(?!en\.js|index\.js)/.test(input),
      );
      expect(locales, name).toEqual([]);
    }
  });

  it("carries only the credential sources a Lambda uses: none of the SDK's full default chain", () => {
    // A Lambda's role credentials are in its environment; config files, SSO, credential
    // processes and web identity (with the STS and SSO clients they bring) never run there.
    const chain = [
      "@aws-sdk/credential-provider-node",
      "@aws-sdk/credential-provider-ini",
      "@aws-sdk/credential-provider-sso",
      "@aws-sdk/credential-provider-process",
      "@aws-sdk/credential-provider-web-identity",
      "@aws-sdk/nested-clients",
    ];
    for (const [name] of reports) {
      expect(
        packagesOf(name).filter((p) => chain.includes(p)),
        name,
      ).toEqual([]);
    }
    expect(packagesOf("transitionWorker")).toContain("@aws-sdk/credential-provider-env");
  });

  it("keeps the transition worker's bundle within 800 KiB (issue 12: it was 1,310 KiB)", () => {
    // 640 KiB until issue 26 gave it the Home tab and the messages: the bot's client, the Block
    // Kit views and SSM (the web key) brought it to about 884 KiB; SSM left with the signed
    // settings links (they are stored grants now): about 700 KiB.
    const bytes = reports.get("transitionWorker")?.bytes ?? 0;
    expect(bytes).toBeGreaterThan(100 * KiB);
    expect(bytes).toBeLessThanOrEqual(800 * KiB);
  });

  it("makes the tick at least a quarter smaller than the sync worker", () => {
    const tick = reports.get("tick")?.bytes ?? 0;
    const sync = reports.get("syncWorker")?.bytes ?? 0;
    expect(tick).toBeGreaterThan(0);
    expect(tick).toBeLessThan(sync * 0.75);
  });

  it("bundles every function of serverless.yml's entry table", () => {
    expect([...reports.keys()].sort()).toEqual(Object.keys(functionEntries).sort());
  });

  describe("run in a fresh Node process", () => {
    let dynamo: LocalDynamo | undefined;
    afterAll(async () => {
      await dynamo?.close();
    });

    it("loads every bundle, and the transition worker reads DynamoDB through its bundled SDK", async () => {
      // Prepare: dynalite with the table; an SQS event for a user the table does not have.
      dynamo = await startDynalite();
      const bundles = [...reports.keys()].map(
        (name) => pathToFileURL(path.join(outDir, name, "index.mjs")).href,
      );
      const transition = pathToFileURL(path.join(outDir, "transitionWorker", "index.mjs")).href;
      const event = {
        Records: [
          {
            messageId: "m-1",
            body: JSON.stringify({ team: "T0NONE", user: "U0NONE", at: 0, reason: "transition" }),
            attributes: {},
          },
        ],
      };
      const script = [
        `for (const b of ${JSON.stringify(bundles)}) await import(b);`,
        `const { handler } = await import(${JSON.stringify(transition)});`,
        `const out = await handler(${JSON.stringify(event)}, { functionName: "transitionWorker", awsRequestId: "r-1" });`,
        `process.stdout.write("\\nRESULT " + JSON.stringify(out));`,
      ].join("\n");
      // Act
      const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
        env: {
          PATH: process.env.PATH ?? "",
          AWS_REGION: "us-east-1",
          TABLE_NAME: dynamo.tableName,
          DYNAMODB_ENDPOINT: dynamo.endpoint,
          SERVICE_BASE_URL: "http://127.0.0.1:9/api",
          SIGNING_SECRET: "bundle-test-secret",
          TOKEN_KEY: Buffer.alloc(32, 7).toString("base64"),
          TRANSITION_QUEUE_URL: "http://127.0.0.1:9/queue/transition",
          SYNC_QUEUE_URL: "http://127.0.0.1:9/queue/sync",
        },
        timeout: 30_000,
      });
      // Assess: the store answered (no such user), so the message is done, not failed.
      expect(JSON.parse(stdout.split("\nRESULT ")[1] ?? "null")).toEqual({
        batchItemFailures: [],
      });
      expect(stdout).toMatch(/"message":"reconciled".*"outcome":"leave"/);
    }, 40_000);
  });
});
