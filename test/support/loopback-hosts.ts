import { type IncomingHttpHeaders, request } from "node:http";

/**
 * The Host headers a local control surface answers (this machine by a loopback name, any port)
 * and those it refuses (what a page on another site sends after rebinding its name to
 * 127.0.0.1, or a near miss of a loopback name).
 */
export const LOOPBACK_HOSTS = [
  "127.0.0.1",
  "127.0.0.1:8787",
  "localhost",
  "LOCALHOST:3000",
  "[::1]",
  "[::1]:8787",
];
export const REBINDING_HOSTS = [
  "rebind.attacker.example",
  "rebind.attacker.example:8787",
  "127.0.0.1.attacker.example",
  "localhost.attacker.example",
  "evil.localhost.example:80",
  "127.0.0.2",
  "0.0.0.0:8787",
  "[::1].example",
  "127.0.0.1:8787@evil.example",
];

/** One request to 127.0.0.1:`port` that names `host` in its Host header. */
export function requestWithHost(
  port: number,
  path: string,
  host: string,
  opts: { method?: string; body?: string; contentType?: string } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host };
    if (opts.body !== undefined) headers["content-type"] = opts.contentType ?? "application/json";
    const req = request(
      { host: "127.0.0.1", port, path, method: opts.method ?? "GET", headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}
