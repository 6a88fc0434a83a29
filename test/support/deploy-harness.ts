import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { EncryptCommand, KMSClient } from "@aws-sdk/client-kms";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { routes } from "#functions/routes";
import type { App } from "#lib/app/compose/app";
import { compose } from "#lib/app/compose/compose";
import { ALL_MODULES } from "#lib/app/compose/modules";
import { loadConfig } from "#lib/app/config";
import { awsClients } from "#lib/cli/deploy/aws";
import type { CommandDeps } from "#lib/cli/deploy/commands";
import { expectedAlarms } from "#lib/cli/deploy/doctor";
import { DeployError } from "#lib/cli/deploy/errors";
import { stageNames } from "#lib/cli/deploy/names";
import { type OslsRunner, oslsArgs } from "#lib/cli/deploy/osls";
import { serviceApp } from "#lib/cli/deploy/service-app";
import type { CliIo } from "#lib/cli/io";
import type { Queue } from "#lib/core/ports";
import { lambdaContext } from "../integration/functions/harness";
import type { LocalDynamo } from "./dynalite";
import type { FakeAws } from "./fake-aws";

/**
 * What the deploy tests put where AWS's own parts would be. Named honestly: `FakeOsls` stands
 * in for the osls child process (it records the arguments a real run would get and applies to
 * the fake account what CloudFormation would make of them, including its rule that an update
 * creates or deletes at most one index and changes no index's projection); `DeployedStack` is
 * the real handlers (functions/routes.ts) over an App composed from the environment the stack
 * gives its functions, read from what the deploy stored, behind an HTTP server that the public
 * URL's host maps to.
 */

export const TABLE_INDEXES = { due: "INCLUDE", poll: "INCLUDE" } as const;

export class FakeOsls implements OslsRunner {
  readonly runs: Array<{ action: string; argv: string[]; params: Record<string, string> }> = [];
  /** Refuses a run before it starts (a killed deploy, a failing CloudFormation update). */
  intercept: (run: { action: string; params: Record<string, string> }) => Error | undefined = () =>
    undefined;
  apiId = "a1b2c3d4e5";

  constructor(private readonly aws: FakeAws) {}

  async run(
    action: "deploy" | "remove",
    args: { stage: string; region: string; params: Record<string, string> },
    progress: (line: string) => void,
  ): Promise<void> {
    this.runs.push({ action, argv: oslsArgs(action, args), params: { ...args.params } });
    const refused = this.intercept({ action, params: args.params });
    if (refused) throw refused;
    const names = stageNames(args.stage, args.region);
    const aws = this.aws;
    progress(
      `${action === "deploy" ? "Deploying" : "Removing"} statuspilot to stage ${args.stage} (${args.region})`,
    );
    if (action === "remove") {
      aws.stack = undefined;
      aws.alarms.clear();
      aws.queues.clear();
      // The key is retained; its alias goes with the stack.
      const key = aws.keys.get(names.keyAlias);
      aws.keys.delete(names.keyAlias);
      if (key) aws.keys.set(`retained:${key.arn}`, key);
      return;
    }
    // What CloudFormation resolves at deploy time, and the seal the stack's custom resource makes.
    for (const key of ["serviceBaseUrl", "appId", "oauthClientId", "oauthClientSecret"] as const) {
      if (!aws.params.has(names.parameter(key))) {
        throw new DeployError(
          "osls",
          `CloudFormation: Parameters: [ssm:${names.parameter(key)}] cannot be found.`,
          "rerun",
        );
      }
    }
    this.applyIndexes(args.params.indexUpgrade ?? "none");
    if (!aws.keys.has(names.keyAlias)) aws.addKey(names.keyAlias);
    for (const q of ["transition", "transition-dlq", "sync", "sync-dlq"]) {
      const name = `${names.stack}-${q}`;
      if (!aws.queues.has(name)) aws.queues.set(name, 0);
    }
    for (const alarm of expectedAlarms(names)) aws.alarms.add(alarm);
    const domain = args.params.domain;
    const apiUrl = `https://${this.apiId}.execute-api.${args.region}.amazonaws.com`;
    aws.stack = {
      status: aws.stack ? "UPDATE_COMPLETE" : "CREATE_COMPLETE",
      outputs: {
        HttpApiUrl: apiUrl,
        PublicBaseUrl: domain ? `https://${domain}` : apiUrl,
        StatuspilotMigrations: args.params.migrations ?? "none",
        ...(domain
          ? {
              Domain: domain,
              DomainCertificateArn: args.params.domainCertificateArn ?? "",
              DomainTarget: `d-abc.execute-api.${args.region}.amazonaws.com`,
            }
          : {}),
      },
    };
    progress(`Service deployed to stack ${names.stack}`);
  }

  /** The table as the template with this `indexUpgrade` declares it, by CloudFormation's rules. */
  private applyIndexes(step: string): void {
    const want: Record<string, "ALL" | "INCLUDE" | undefined> = {
      due: step === "omit-due" ? undefined : "INCLUDE",
      poll:
        step === "omit-poll"
          ? undefined
          : step === "omit-due" || step === "legacy-poll"
            ? "ALL"
            : "INCLUDE",
    };
    const table = this.aws.table;
    if (!table) {
      this.aws.table = {
        deletionProtection: true,
        indexes: Object.entries(want).flatMap(([IndexName, p]) =>
          p ? [{ IndexName, ProjectionType: p, IndexStatus: "ACTIVE" }] : [],
        ),
      };
      return;
    }
    const changes = Object.entries(want).filter(
      ([name, p]) => table.indexes.find((i) => i.IndexName === name)?.ProjectionType !== p,
    );
    // An update that leaves the table as it is does not touch it; any other waits for ACTIVE.
    if (changes.length > 0 && table.indexes.some((i) => i.IndexStatus !== "ACTIVE")) {
      throw new DeployError(
        "osls",
        "CloudFormation: Cannot update table while an index is being created",
        "wait",
      );
    }
    for (const [name, p] of changes) {
      const had = table.indexes.find((i) => i.IndexName === name);
      if (had && p) {
        throw new DeployError(
          "osls",
          `CloudFormation: Cannot update GSI's properties other than Provisioned Throughput and Contributor Insights Specification (${name})`,
          "rerun",
        );
      }
    }
    if (changes.length > 1) {
      throw new DeployError(
        "osls",
        "CloudFormation: Cannot perform more than one GSI creation or deletion in a single update",
        "rerun",
      );
    }
    for (const [name, p] of changes) {
      table.indexes = table.indexes.filter((i) => i.IndexName !== name);
      if (p) table.indexes.push({ IndexName: name, ProjectionType: p, IndexStatus: "CREATING" });
    }
  }
}

/** Output written to buffers; `all()` is every line, both streams. */
export function bufferIo(): CliIo & { out: (t: string) => void; lines: string[]; all(): string } {
  const lines: string[] = [];
  return {
    lines,
    out: (t) => lines.push(t),
    err: (t) => lines.push(t),
    all: () => lines.join("\n"),
  };
}

class DiscardingQueue<M> implements Queue<M> {
  async send(_message: M): Promise<void> {}
}

/**
 * The deployed stack's HTTP API: every route's real handler over one App, composed from the
 * environment serverless.yml gives the functions, filled from the fake account (the SSM values
 * CloudFormation resolves, the stack's public URL, its key, the sealed client secret) and
 * dynalite for the table. `fetch` reaches it at the stack's public URL.
 */
export async function startDeployedStack(aws: FakeAws, stage: string, dynamo: LocalDynamo) {
  const names = stageNames(stage, aws.region);
  const value = (key: Parameters<typeof names.parameter>[0]) =>
    aws.params.get(names.parameter(key))?.value ?? "";
  const publicUrl = aws.stack?.outputs.PublicBaseUrl ?? "";
  const keyArn = aws.keys.get(names.keyAlias)?.arn ?? "";
  // The stack's custom resource seals the client secret the same way (infra/resources/app-secret.yml).
  const sealed = await new KMSClient({ region: aws.region }).send(
    new EncryptCommand({
      KeyId: keyArn,
      Plaintext: Buffer.from(value("oauthClientSecret")),
      EncryptionContext: { team: "-", user: "-", field: "oauth_client_secret" },
    }),
  );
  const app: App = compose(
    loadConfig({
      TABLE_NAME: dynamo.tableName,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AWS_REGION: aws.region,
      SERVICE_BASE_URL: value("serviceBaseUrl"),
      APP_ID: value("appId"),
      SIGNING_SECRET_PARAM: names.parameter("signingSecret"),
      PUBLIC_BASE_URL: publicUrl,
      OAUTH_CLIENT_ID: value("oauthClientId"),
      OAUTH_CLIENT_SECRET_PARAM: names.parameter("oauthClientSecret"),
      OAUTH_CLIENT_SECRET_SEALED: `kms:${Buffer.from(sealed.CiphertextBlob ?? new Uint8Array()).toString("base64")}`,
      WEB_KEY_PARAM: names.parameter("webKey"),
      TOKEN_KMS_KEY_ID: keyArn,
      LOG_LEVEL: "SILENT",
    }),
    {
      modules: ALL_MODULES,
      transitionQueue: new DiscardingQueue(),
      syncQueue: new DiscardingQueue(),
    },
  );
  const server: Server = createServer((req, res) => {
    void serve(req, res).catch((error: unknown) => {
      res.statusCode = 599;
      res.end(String(error));
    });
  });
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", publicUrl);
    const method = req.method ?? "GET";
    const route = routes.find((r) => r.path === url.pathname && r.method === method);
    if (!route) {
      res.writeHead(404).end('{"message":"Not Found"}');
      return;
    }
    const handler = (await route.load()).createHandler(() => app) as (
      e: unknown,
      c: unknown,
    ) => Promise<APIGatewayProxyStructuredResultV2>;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(
      Object.entries(req.headers).flatMap(([k, v]) => (typeof v === "string" ? [[k, v]] : [])),
    );
    const { cookie, ...rest } = headers;
    const event = {
      version: "2.0",
      routeKey: `${method} ${route.path}`,
      rawPath: url.pathname,
      rawQueryString: url.search.slice(1),
      headers: { ...rest, host: new URL(publicUrl).host },
      ...(cookie ? { cookies: cookie.split(";").map((c) => c.trim()) } : {}),
      queryStringParameters: Object.fromEntries(url.searchParams),
      body: Buffer.concat(chunks).toString("utf8"),
      isBase64Encoded: false,
      requestContext: {
        http: { method, sourceIp: "127.0.0.1" },
        requestId: "r-1",
        timeEpoch: Date.now(),
      },
    } as unknown as APIGatewayProxyEventV2;
    const result = await handler(event, lambdaContext(route.function));
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(result.headers ?? {})) out[k] = String(v);
    if (result.cookies?.length) out["set-cookie"] = result.cookies;
    res.writeHead(result.statusCode ?? 200, out);
    res.end(result.body ?? "");
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const origin = new URL(publicUrl).origin;
  /** fetch, with the stack's public origin reaching the local server (DNS and TLS, stood in for). */
  const stackFetch: typeof fetch = (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    return fetch(url.startsWith(origin) ? local + url.slice(origin.length) : url, init);
  };
  return {
    app,
    publicUrl,
    fetch: stackFetch,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * The commands' dependencies over the fake account, the emulator and FakeOsls. `fetch` routes
 * the deployed stack's public URL to `stack()` when one is running (the doctor's checks).
 */
export function commandDeps(options: {
  aws: FakeAws;
  osls: OslsRunner;
  env: Record<string, string | undefined>;
  stackFetch?: () => typeof fetch | undefined;
  serviceFetch?: typeof fetch;
  answer?: string;
  onServiceCall?: (method: string) => void;
}): CommandDeps {
  const serviceFetch: typeof fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    options.onServiceCall?.(url.split("/").pop() ?? "");
    return (options.serviceFetch ?? fetch)(input, init);
  };
  return {
    aws: (region) => {
      const clients = awsClients(region);
      options.aws.stubDynamo(clients.dynamodb);
      for (const client of Object.values(clients)) options.aws.commandClients.add(client);
      return clients;
    },
    osls: options.osls,
    service: (baseUrl, token) => serviceApp({ baseUrl, token, fetch: serviceFetch }),
    fetch: (input, init) => {
      const f = options.stackFetch?.();
      if (f) return f(input, init);
      return Promise.reject(new TypeError("fetch failed: the stack's address does not resolve"));
    },
    env: options.env,
    sleep: async () => {},
    ask: async () => options.answer ?? "",
    now: () => Date.now(),
  };
}
