import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** A notification endpoint for the Microsoft emulator's tests, answering as configured. */
export interface ReceiverBehaviour {
  /** How the validation handshake is answered. */
  validation: "echo" | "wrong" | "json" | "slow";
  /** Status for change notifications (lifecycle notifications are always accepted). */
  status: number;
  slowMs: number;
}

export interface ReceivedPost {
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export async function startGraphReceiver(initial: Partial<ReceiverBehaviour> = {}) {
  const behaviour: ReceiverBehaviour = { validation: "echo", status: 202, slowMs: 0, ...initial };
  const received: ReceivedPost[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://receiver.invalid");
      received.push({
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      const token = url.searchParams.get("validationToken");
      if (token === null) {
        res.writeHead(url.pathname.endsWith("/lifecycle") ? 202 : behaviour.status);
        res.end();
        return;
      }
      const answer = () => {
        if (behaviour.validation === "json") {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ validationToken: token }));
          return;
        }
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(behaviour.validation === "wrong" ? `${token}x` : token);
      };
      if (behaviour.validation === "slow") setTimeout(answer, behaviour.slowMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  return {
    notificationUrl: `${base}/hooks/graph`,
    lifecycleUrl: `${base}/hooks/graph/lifecycle`,
    behaviour,
    received,
    /** Notification bodies (not handshakes) posted to `path`, parsed. */
    notifications(path = "/hooks/graph"): Array<{ value: Record<string, unknown>[] }> {
      return received
        .filter((r) => r.path === path && !r.query.has("validationToken"))
        .map((r) => JSON.parse(r.body) as { value: Record<string, unknown>[] });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
