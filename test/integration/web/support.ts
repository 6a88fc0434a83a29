import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ScanCommand } from "@aws-sdk/client-dynamodb";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { type RunningEmulator, startEmulator } from "#emulator/server";
import { loadWorkspace } from "#emulator/workspace";
import { routes } from "#functions/routes";
import type { App } from "#lib/app/compose/app";
import { compose } from "#lib/app/compose/compose";
import { ALL_MODULES, type AppModules } from "#lib/app/compose/modules";
import { loadConfig } from "#lib/app/config";
import type { SyncMessage, TransitionMessage } from "#lib/app/contracts";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { ManualClock } from "#lib/core/clock";
import type { Queue } from "#lib/core/ports";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";
import { lambdaContext } from "../functions/harness";

/**
 * The front door over plain HTTP: dynalite, the emulator (with the Statuspilot app's OAuth
 * client and redirect URL), the web function behind a small HTTP server that turns requests
 * into API Gateway v2 events (cookies in `cookies`, as API Gateway does), and a calendar server.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const CLIENT_ID = "1111.2222";
export const CLIENT_SECRET = "front-door-client-secret-0001";
export const TOKEN_KEY = Buffer.alloc(32, 9).toString("base64");
/** Monday 5 January 2026, 09:00 UTC (10:00 in Berlin). */
export const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

class RecordingQueue<M> implements Queue<M> {
  readonly sent: M[] = [];
  async send(message: M): Promise<void> {
    this.sent.push(message);
  }
}

export interface FrontDoorStack {
  web: string;
  calendarUrl: string;
  app: App;
  clock: ManualClock;
  dynamo: LocalDynamo;
  emulator: RunningEmulator;
  syncs: RecordingQueue<SyncMessage>;
  /** How many times the calendar server answered. */
  calendarReads(): number;
  /** Runs the queued syncs, as the sync worker would (each applies and reconciles inline). */
  drainSyncs(): Promise<void>;
  /** Every item of the table. */
  scan(): Promise<Record<string, unknown>[]>;
  tokenOf(team: string, user: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/** The calendar server's ETag (it answers every request in full, as many feeds do). */
export const DEMO_ICS_ETAG = '"demo-ics-1"';

/** A calendar with one meeting from 10 minutes before T0 to 50 minutes after. */
export const DEMO_ICS = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "PRODID:-//test//front door//EN",
  "BEGIN:VEVENT",
  "UID:standup-1@example.com",
  "DTSTAMP:20260101T000000Z",
  "DTSTART:20260105T085000Z",
  "DTEND:20260105T095000Z",
  "SUMMARY:Weekly sync",
  "END:VEVENT",
  "END:VCALENDAR",
  "",
].join("\r\n");

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

/** `modules`: what the web function was given (every module unless told otherwise). */
export async function startFrontDoor(opts: { modules?: AppModules } = {}): Promise<FrontDoorStack> {
  const clock = new ManualClock(T0);
  const dynamo = await startDynalite();
  const { createHandler } = await import("#functions/http/web");
  const webServer = createServer((req, res) => {
    void serve(req, res).catch((error: unknown) => {
      res.statusCode = 599;
      res.end(String(error));
    });
  });
  const web = await listen(webServer);
  const workspace = loadWorkspace(path.join(repoRoot, "test/fixtures/events/workspace.json"));
  const app = workspace.apps.find((a) => a.id === "A0STATUSPILOT");
  if (!app) throw new Error("no Statuspilot app in the workspace fixture");
  app.client_id = CLIENT_ID;
  app.client_secret = CLIENT_SECRET;
  app.manifest = {
    ...app.manifest,
    oauth_config: {
      redirect_urls: [`${web}/oauth/callback`],
      scopes: { user: ["users.profile:read", "users.profile:write", "users:read"] },
    },
  };
  const emulator = await startEmulator({ workspace, port: 0, clock, expirySweepMs: 0 });
  let calendarReads = 0;
  const calendar = createServer((_req, res) => {
    calendarReads += 1;
    res.writeHead(200, { "content-type": "text/calendar", etag: DEMO_ICS_ETAG });
    res.end(DEMO_ICS);
  });
  const calendarBase = await listen(calendar);
  const syncs = new RecordingQueue<SyncMessage>();
  const built = compose(
    loadConfig({
      TABLE_NAME: dynamo.tableName,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      SERVICE_BASE_URL: emulator.apiBase,
      SIGNING_SECRET: "demo-signing-secret",
      TOKEN_KEY,
      LOG_LEVEL: "SILENT",
      OAUTH_CLIENT_ID: CLIENT_ID,
      OAUTH_CLIENT_SECRET: CLIENT_SECRET,
      WEB_KEY: "front-door-test-key-0123456789abcdef",
      PUBLIC_BASE_URL: web,
    }),
    {
      modules: opts.modules ?? ALL_MODULES,
      clock,
      syncQueue: syncs,
      transitionQueue: new RecordingQueue<TransitionMessage>(),
      allowPrivateSourceAddresses: true,
    },
  );
  // The web function over this App, as its factory makes it for any source.
  const handler = createHandler(() => built);

  /** The web function's routes, by exact path (none of them has parameters). */
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", web);
    const method = req.method ?? "GET";
    const route = routes.find(
      (r) => r.function === "web" && r.path === url.pathname && r.method === method,
    );
    const headers = Object.fromEntries(
      Object.entries(req.headers).flatMap(([k, v]) => (typeof v === "string" ? [[k, v]] : [])),
    );
    const { cookie, ...rest } = headers;
    const event = {
      version: "2.0",
      routeKey: route ? `${method} ${route.path}` : "$default",
      rawPath: url.pathname,
      rawQueryString: url.search.slice(1),
      headers: rest,
      ...(cookie ? { cookies: cookie.split(";").map((c) => c.trim()) } : {}),
      queryStringParameters: Object.fromEntries(url.searchParams),
      body: await readBody(req),
      isBase64Encoded: false,
      requestContext: { http: { method } },
    } as unknown as APIGatewayProxyEventV2;
    const result = (await handler(
      event,
      lambdaContext("web"),
    )) as APIGatewayProxyStructuredResultV2;
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(result.headers ?? {})) out[k] = String(v);
    if (result.cookies?.length) out["set-cookie"] = result.cookies;
    res.writeHead(result.statusCode ?? 200, out);
    res.end(result.body ?? "");
  }

  const vault = new LocalTokenVault(TOKEN_KEY);
  return {
    web,
    calendarUrl: `${calendarBase}/secret-calendar-7f3a/basic.ics`,
    calendarReads: () => calendarReads,
    app: built,
    clock,
    dynamo,
    emulator,
    syncs,
    drainSyncs: async () => {
      for (const msg of syncs.sent.splice(0)) await built.syncSource(msg);
    },
    scan: async () => {
      const out = await dynamo.client.send(new ScanCommand({ TableName: dynamo.tableName }));
      return (out.Items ?? []).map((item) =>
        Object.fromEntries(Object.entries(item).map(([k, v]) => [k, Object.values(v)[0]])),
      );
    },
    tokenOf: async (team, user) => {
      const data = await profileData(dynamo, team, user);
      return data ? vault.open(data.tokenSealed, { team, user, field: "access_token" }) : undefined;
    },
    close: async () => {
      await Promise.all([
        new Promise((r) => webServer.close(r)),
        new Promise((r) => calendar.close(r)),
      ]);
      await emulator.close();
      await dynamo.close();
    },
  };
}

/** The stored profile's data of a user, read straight from the table. */
async function profileData(dynamo: LocalDynamo, team: string, user: string) {
  const out = await dynamo.client.send(new ScanCommand({ TableName: dynamo.tableName }));
  const item = (out.Items ?? []).find(
    (i) => i.PK?.S === `USER#${team}#${user}` && i.SK?.S === "PROFILE",
  );
  const data = item?.data?.S;
  return data ? (JSON.parse(data) as { tokenSealed: string }) : undefined;
}

/** A browser's cookie jar, reduced to what these tests need: name → value, by Set-Cookie. */
export class CookieJar {
  private readonly jar = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (/Max-Age=0/i.test(line) || value === "") this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }
  header(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  copy(): CookieJar {
    const other = new CookieJar();
    for (const [k, v] of this.jar) other.jar.set(k, v);
    return other;
  }
}

/**
 * A request as a browser without redirects-following sends it, the jar's cookies kept, with
 * `headers` as a browser adds them (Origin, Sec-Fetch-Site, Referer).
 */
export async function visit(
  jar: CookieJar,
  url: string,
  init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<Response> {
  const res = await fetch(url, {
    method: init.method ?? (init.form ? "POST" : "GET"),
    redirect: "manual",
    headers: {
      ...(jar.header() ? { cookie: jar.header() } : {}),
      ...(init.form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      ...init.headers,
    },
    ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
  });
  jar.take(res);
  return res;
}

/** The CSRF token of a settings page. */
export const csrfOf = (html: string): string => {
  const m = /name="csrf"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*name="csrf"/.exec(html);
  const token = m?.[1] ?? m?.[2];
  if (!token) throw new Error("no CSRF token on the page");
  return token;
};

/** `user` installs Statuspilot: /install, the emulator's consent as them, the callback. */
export async function signedInAs(stack: FrontDoorStack, user: string): Promise<CookieJar> {
  const jar = new CookieJar();
  const install = await visit(jar, `${stack.web}/install`);
  const authorize = new URL(install.headers.get("location") ?? "");
  authorize.searchParams.set("as", user);
  const consent = await visit(jar, authorize.href);
  await visit(jar, consent.headers.get("location") ?? "");
  return jar;
}
