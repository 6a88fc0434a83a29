import type * as z from "zod";
import type { Clock } from "#lib/core/clock";
import { type Log, silentLog } from "#lib/core/ports";
import { callTimeLeftMs } from "./call-deadline";
import { ServiceError, ServiceNetworkError, ServiceResponseError } from "./errors";
import { failureSchema } from "./profile";

export interface TransportOptions {
  /** Base of the method URLs, e.g. `http://127.0.0.1:4010/api` (a trailing slash is fine). */
  baseUrl: string;
  clock: Clock;
  fetch?: typeof fetch;
  timeoutMs?: number;
  log?: Log;
}

export type Encoding = "json" | "form";

/**
 * One HTTP call to a method of the service's web API and the reading of its answer: what the
 * profile client (lib/service/client.ts) and the manifest client (manifest-client.ts) share.
 * Every failure is a ServiceError; an `ok: false` answer is one with the service's code.
 */
export class ServiceTransport {
  private readonly baseUrl: string;
  private readonly clock: Clock;
  private readonly fetchFn: typeof fetch;
  private readonly timeoutMs: number;
  private readonly log: Log;

  constructor(opts: TransportOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.clock = opts.clock;
    this.fetchFn = opts.fetch ?? fetch;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.log = opts.log ?? silentLog;
  }

  /** Sends `params` with a bearer token, JSON or form encoded; resolves to the `ok` answer. */
  post(
    method: string,
    token: string,
    params: Record<string, string | Record<string, unknown>>,
    opts: { encoding: Encoding; actingUser?: string | undefined },
  ): Promise<unknown> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (opts.actingUser !== undefined) headers["x-svc-user"] = opts.actingUser;
    let body: string;
    if (opts.encoding === "form") {
      headers["content-type"] = "application/x-www-form-urlencoded";
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) {
        // Form encoding carries objects (the profile) as URL-encoded JSON.
        form.set(k, typeof v === "string" ? v : JSON.stringify(v));
      }
      body = form.toString();
    } else {
      headers["content-type"] = "application/json; charset=utf-8";
      body = JSON.stringify(params);
    }
    return this.send(method, headers, body);
  }

  /** Sends exactly these headers and body; resolves to the answer unless it is `ok: false`. */
  async send(
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<unknown> {
    let response: Response;
    // The message's deadline, when nearer than the transport's own timeout.
    const timeoutMs = Math.min(this.timeoutMs, callTimeLeftMs() ?? this.timeoutMs);
    try {
      response = await this.fetchFn(`${this.baseUrl}/${method}`, {
        method: "POST",
        headers,
        // Bytes, not a string: fetch would add a text/plain Content-Type of its own.
        ...(body !== undefined ? { body: new TextEncoder().encode(body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err: unknown) {
      const timedOut = err instanceof Error && err.name === "TimeoutError";
      this.log.warn("service call failed", { method, reason: timedOut ? "timeout" : "network" });
      throw timedOut
        ? new ServiceNetworkError("timeout", `${method}: no answer in ${timeoutMs} ms`, err)
        : new ServiceNetworkError("network_error", `${method}: service unreachable`, err);
    }
    const retryAfterS = this.retryAfter(response.headers.get("retry-after"));
    let text: string;
    try {
      text = await response.text();
    } catch (err: unknown) {
      throw new ServiceNetworkError("network_error", `${method}: answer cut off`, err);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err: unknown) {
      if (response.status === 429) {
        throw new ServiceError(`${method}: ratelimited`, {
          code: "ratelimited",
          httpStatus: 429,
          ...(retryAfterS !== undefined ? { retryAfterS } : {}),
        });
      }
      throw new ServiceResponseError(`${method}: answer is not JSON`, response.status, err);
    }
    const failure = failureSchema.safeParse(json);
    if (failure.success) {
      const f = failure.data;
      this.log.info("service call refused", { method, code: f.error, status: response.status });
      throw new ServiceError(`${method}: ${f.error}`, {
        code: f.error,
        httpStatus: response.status,
        ...(retryAfterS !== undefined ? { retryAfterS } : {}),
        ...(f.errors !== undefined ? { errors: f.errors } : {}),
      });
    }
    return json;
  }

  /** The answer read with `schema`; a shape it does not have is a ServiceResponseError. */
  expect<S extends z.ZodType>(body: unknown, schema: S, method: string): z.infer<S> {
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new ServiceResponseError(
        `${method}: unexpected answer shape (${parsed.error.issues[0]?.message ?? "?"})`,
        200,
        parsed.error,
      );
    }
    return parsed.data;
  }

  /** `Retry-After` is seconds, or (rarely) an HTTP date. */
  private retryAfter(header: string | null): number | undefined {
    if (header === null || header.trim() === "") return undefined;
    const seconds = Number(header);
    if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
    const at = Date.parse(header);
    if (Number.isNaN(at)) return undefined;
    return Math.max(0, Math.ceil((at - this.clock.now()) / 1000));
  }
}
