import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadWorkspace } from "#emulator/server";
import { systemClock } from "#lib/app/compose/system-clock";
import { ManualClock } from "#lib/core/clock";
import { DEMO_GOOGLE_ACCOUNT } from "#lib/local/google";
import { type LocalStack, startStack } from "#lib/local/stack";
import type { StackOptions } from "#lib/local/stack-types";
import { CookieJar, csrfOf, visit } from "../integration/web/support";
import { advance, type E2e, settle } from "./support";

/**
 * A local stack with the Google emulator (lib/local/google.ts), driven over HTTP only: the
 * person installs Statuspilot (/install, the service emulator's consent), then connects Google
 * (/connect/google, the Google emulator's consent, approved at once as its demo account), and
 * the Google emulator's control surface edits the calendar (each edit pushes, as Google does).
 */
const repoRoot = path.resolve(fileURLToPath(import.meta.url), "../../..");
export const GOOGLE_CALENDAR = DEMO_GOOGLE_ACCOUNT;

export interface GoogleE2e extends E2e {
  stack: LocalStack;
  googleUrl: string;
  jar: CookieJar;
}

export async function startGoogleE2e(
  opts: { manualAt?: number; pushTtlMs?: number } & Pick<
    StackOptions,
    "tickEveryMs" | "tickHorizonMs" | "pollEveryMs"
  > = {},
): Promise<GoogleE2e> {
  const workspace = loadWorkspace(path.join(repoRoot, "emulator/demo-workspace.json"));
  const stack = await startStack({
    workspace,
    users: [],
    port: 0,
    emulatorPort: 0,
    time:
      opts.manualAt === undefined
        ? { mode: "real", skippable: true }
        : { mode: "manual", clock: new ManualClock(opts.manualAt) },
    google: { emulator: { autoApprove: true } },
    ...(opts.pushTtlMs !== undefined ? { pushTtlMs: opts.pushTtlMs } : {}),
    ...(opts.tickEveryMs !== undefined ? { tickEveryMs: opts.tickEveryMs } : {}),
    ...(opts.tickHorizonMs !== undefined ? { tickHorizonMs: opts.tickHorizonMs } : {}),
    ...(opts.pollEveryMs !== undefined ? { pollEveryMs: opts.pollEveryMs } : {}),
  });
  const googleUrl = stack.google?.emulator?.url;
  if (googleUrl === undefined) throw new Error("the stack runs no Google emulator");
  return {
    stack,
    googleUrl,
    jar: new CookieJar(),
    url: stack.url,
    emulatorUrl: stack.emulator?.url ?? "",
    serviceBase: stack.serviceBase,
    adminApiKey: stack.adminApiKey,
    installUrl: stack.installUrl ?? "",
    feedUrl: () => "",
    close: () => stack.close(),
  };
}

/** /install → the service's consent as `user` → the callback: signed in. */
export async function installAs(e: GoogleE2e, user: string): Promise<void> {
  const install = await visit(e.jar, `${e.url}/install`);
  const authorize = new URL(install.headers.get("location") ?? "");
  authorize.searchParams.set("as", user);
  const consent = await visit(e.jar, authorize.href);
  const callback = await visit(e.jar, consent.headers.get("location") ?? "");
  if (callback.headers.get("location") !== "/settings") {
    throw new Error(`install ended at ${callback.status} ${callback.headers.get("location")}`);
  }
}

/** /connect/google → Google's consent (approved) → the callback; where it lands. */
export async function connectGoogle(e: GoogleE2e): Promise<{ start: URL; landing: string }> {
  const begin = await visit(e.jar, `${e.url}/connect/google`);
  const start = new URL(begin.headers.get("location") ?? "");
  const consent = await visit(e.jar, start.href);
  const callback = await visit(e.jar, consent.headers.get("location") ?? "");
  return { start, landing: callback.headers.get("location") ?? `status ${callback.status}` };
}

export async function settingsHtml(e: GoogleE2e): Promise<string> {
  const res = await visit(e.jar, `${e.url}/settings`);
  return res.text();
}

export async function postSettings(e: GoogleE2e, path: string, form: Record<string, string>) {
  const html = await settingsHtml(e);
  return visit(e.jar, `${e.url}${path}`, { form: { csrf: csrfOf(html), ...form } });
}

const control = async (e: GoogleE2e, method: string, route: string, body?: unknown) => {
  const res = await fetch(`${e.googleUrl}/_control${route}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok)
    throw new Error(`google control ${route} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
};

/** Adds a timed event to the demo account's calendar; its id. */
export async function addGoogleEvent(
  e: GoogleE2e,
  fields: { summary: string; start: number; end: number } & Record<string, unknown>,
): Promise<string> {
  const { start, end, ...rest } = fields;
  const created = await control(
    e,
    "POST",
    `/calendars/${encodeURIComponent(GOOGLE_CALENDAR)}/events`,
    {
      ...rest,
      start: { dateTime: new Date(start).toISOString() },
      end: { dateTime: new Date(end).toISOString() },
    },
  );
  return String(created.id);
}

export const cancelGoogleEvent = (e: GoogleE2e, id: string) =>
  control(
    e,
    "POST",
    `/calendars/${encodeURIComponent(GOOGLE_CALENDAR)}/events/${encodeURIComponent(id)}/cancel`,
  );

/** Lets the Google emulator's pushes arrive and the stack run what they queued. */
export async function deliverPushes(e: GoogleE2e): Promise<void> {
  await fetch(`${e.googleUrl}/_control/flush`, { method: "POST" });
  await settle(e);
  await advance(e, 0);
}

export const googleChannels = async (e: GoogleE2e) =>
  (await control(e, "GET", "/channels")).channels as Array<Record<string, unknown>>;

export const googleFaults = (e: GoogleE2e, faults: Record<string, unknown>) =>
  control(e, "POST", "/faults", faults);

/** Polls `probe` until it returns a value, for at most `ms` of wall time. */
export async function waitFor<T>(ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const until = systemClock.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (systemClock.now() > until) throw new Error(`nothing after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
