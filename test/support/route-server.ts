import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A loopback HTTP server answering each path by its route (404 elsewhere). */
export interface RouteServer {
  base: string;
  close(): Promise<void>;
}

export async function serveRoutes(
  routes: Record<string, (res: ServerResponse, req: IncomingMessage) => void>,
): Promise<RouteServer> {
  const server = createServer((req, res) => {
    const route = routes[req.url ?? ""];
    if (route) route(res, req);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
