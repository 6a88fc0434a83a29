import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { type RunningGoogleEmulator, startGoogleEmulator } from "#emulator/google/server";
import { ManualClock } from "#lib/core/clock";

// Shared setup of the Google emulator tests: an emulator on a manual clock with one OAuth client
// and one account, the OAuth dance over HTTP, and a local receiver for push messages.

export const T0 = Date.UTC(2025, 2, 3, 8, 0, 0); // Monday 2025-03-03 08:00 UTC
export const CLIENT_ID = "1234-emu.apps.googleusercontent.com";
export const CLIENT_SECRET = "GOCSPX-emulated-secret";
export const REDIRECT = "https://app.example/connect/google/callback";
export const USER = "ada@example.com";
export const READ_SCOPE = "https://www.googleapis.com/auth/calendar.events.readonly";

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

export type Json = Record<string, unknown>;

export async function setup(opts: { autoApprove?: boolean; retryDelaysMs?: number[] } = {}) {
  const clock = new ManualClock(T0);
  const emu: RunningGoogleEmulator = await startGoogleEmulator({
    clock,
    clients: [{ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUris: [REDIRECT] }],
    users: [{ email: USER, name: "Ada", timeZone: "Europe/Berlin" }],
    ...(opts.autoApprove === false ? {} : { autoApprove: USER }),
    push: { retryDelaysMs: opts.retryDelaysMs ?? [5, 10, 20], attemptTimeoutMs: 2000 },
  });
  running.push(emu);
  return { clock, emu };
}

/** The authorize step's redirect (auto-approved), without following it. */
export async function authorize(
  emu: RunningGoogleEmulator,
  extra: Record<string, string> = {},
): Promise<{ status: number; location: URL | undefined; text: string }> {
  const q = new URLSearchParams({
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT,
    response_type: "code",
    scope: READ_SCOPE,
    access_type: "offline",
    prompt: "consent",
    state: "st-123",
    ...extra,
  });
  const res = await fetch(`${emu.authUrl}?${q}`, { redirect: "manual" });
  const loc = res.headers.get("location");
  return { status: res.status, location: loc ? new URL(loc) : undefined, text: await res.text() };
}

export async function token(
  emu: RunningGoogleEmulator,
  form: Record<string, string>,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(emu.tokenUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, ...form }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** Consent and code exchange: an access token and a refresh token for the account. */
export async function connect(emu: RunningGoogleEmulator) {
  const { location } = await authorize(emu);
  const code = location?.searchParams.get("code");
  if (!code) throw new Error("no code in the redirect");
  const { body } = await token(emu, {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
  });
  return { accessToken: String(body.access_token), refreshToken: String(body.refresh_token) };
}

export async function api(
  emu: RunningGoogleEmulator,
  accessToken: string | undefined,
  path: string,
  init: { method?: string; body?: unknown; query?: Record<string, string> } = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const q = init.query ? `?${new URLSearchParams(init.query)}` : "";
  const res = await fetch(`${emu.apiBaseUrl}/calendar/v3${path}${q}`, {
    method: init.method ?? "GET",
    headers: {
      ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text === "" ? {} : (JSON.parse(text) as Json),
    headers: res.headers,
  };
}

export const listEvents = (
  emu: RunningGoogleEmulator,
  tok: string,
  query: Record<string, string>,
) => api(emu, tok, "/calendars/primary/events", { query });

export interface Push {
  headers: IncomingHttpHeaders;
  body: string;
  method: string;
}

/** A push receiver; `answer(n)` is the HTTP status of the n-th message (1-based). */
export async function startPushReceiver(answer: (n: number) => number = () => 200) {
  const received: Push[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        method: req.method ?? "",
      });
      res.writeHead(answer(received.length));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver = {
    url: `http://127.0.0.1:${port}/hooks/google`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  running.push(receiver);
  return receiver;
}

export const items = (body: Json): Json[] => (body.items as Json[] | undefined) ?? [];
export const ids = (body: Json): string[] => items(body).map((i) => String(i.id));
