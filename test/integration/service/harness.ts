import { createServer, type IncomingHttpHeaders } from "node:http";
import { type AddressInfo, connect } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadWorkspace, type Workspace } from "#emulator/workspace";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const fixture = (name: string) => path.join(repoRoot, "test/fixtures/workspaces", name);

/** The conformance workspace, freshly loaded, optionally changed for one test. */
export function conformanceWorkspace(mutate?: (ws: Workspace) => void): Workspace {
  const ws = loadWorkspace(fixture("conformance.json"));
  mutate?.(ws);
  return ws;
}

/** The OAuth settings a test gives the conformance workspace's A0MAIN app. */
export interface MainOAuthApp {
  clientId: string;
  clientSecret: string;
  redirectUrls: string[];
  userScopes: string[];
  rotation: boolean;
  /** The name shown on the consent page; the fixture's own when absent. */
  displayName?: string;
  /** More of the manifest's `settings` (e.g. event subscriptions). */
  settings?: Record<string, unknown>;
}

/**
 * The conformance workspace with A0MAIN as an OAuth app (credentials, redirect URLs, user scopes,
 * token rotation on or off), optionally changed further for one test.
 */
export function oauthAppWorkspace(app: MainOAuthApp, mutate?: (ws: Workspace) => void): Workspace {
  return conformanceWorkspace((ws) => {
    const main = appOf(ws);
    main.client_id = app.clientId;
    main.client_secret = app.clientSecret;
    main.manifest = {
      ...main.manifest,
      ...(app.displayName !== undefined ? { display_information: { name: app.displayName } } : {}),
      oauth_config: { redirect_urls: app.redirectUrls, scopes: { user: app.userScopes } },
      settings: { token_rotation_enabled: app.rotation, ...app.settings },
    };
    mutate?.(ws);
  });
}

/** The workspace's app `id` (A0MAIN by default), for a test to change; throws when it is gone. */
export function appOf(ws: Workspace, id = "A0MAIN"): Workspace["apps"][number] {
  const app = ws.apps.find((a) => a.id === id);
  if (!app) throw new Error(`the workspace has no app ${id}`);
  return app;
}

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP receiver of events; `answer` picks each response's status. */
export async function startReceiver(answer: (n: number) => number = () => 200) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(answer(received.length));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/service/events`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface RawAnswer {
  /** The status line's code, or undefined when the connection closed without an answer. */
  status: number | undefined;
  body: string;
}

/**
 * Sends a POST through a plain socket whose Content-Length promises more bytes than it sends,
 * something fetch cannot do. `ending: "stall"` keeps the socket open; `"close"` ends it at once.
 */
export function sendTruncatedPost(opts: {
  port: number;
  path: string;
  token: string;
  body: string;
  declaredLength: number;
  ending: "stall" | "close";
}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(opts.port, "127.0.0.1", () => {
      socket.write(
        [
          `POST ${opts.path} HTTP/1.1`,
          "Host: 127.0.0.1",
          "Content-Type: application/json; charset=utf-8",
          `Authorization: Bearer ${opts.token}`,
          `Content-Length: ${opts.declaredLength}`,
          "",
          opts.body,
        ].join("\r\n"),
      );
      if (opts.ending === "close") socket.end();
    });
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];
      const rawBody = received.split("\r\n\r\n").slice(1).join("\r\n\r\n");
      resolve({
        status: status === undefined ? undefined : Number(status),
        body: dechunk(rawBody),
      });
    });
  });
}

/** Joins the chunks of a chunked HTTP/1.1 body (or returns a plain body unchanged). */
function dechunk(raw: string): string {
  if (!/^[0-9a-f]+\r\n/i.test(raw)) return raw;
  let rest = raw;
  let out = "";
  for (;;) {
    const match = /^([0-9a-f]+)\r\n/i.exec(rest);
    if (!match?.[1]) return out;
    const size = Number.parseInt(match[1], 16);
    if (size === 0) return out;
    const start = match[0].length;
    out += rest.slice(start, start + size);
    rest = rest.slice(start + size + 2);
  }
}
