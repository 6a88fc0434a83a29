import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadWorkspace, type Workspace } from "../../../emulator/workspace";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const fixture = (name: string) => path.join(repoRoot, "test/fixtures/workspaces", name);

/** The conformance workspace, freshly loaded, optionally changed for one test. */
export function conformanceWorkspace(mutate?: (ws: Workspace) => void): Workspace {
  const ws = loadWorkspace(fixture("conformance.json"));
  mutate?.(ws);
  return ws;
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
