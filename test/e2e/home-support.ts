import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { loadWorkspace } from "#emulator/server";
import { signV0 } from "../../lib/webhooks";
import { CookieJar, csrfOf, visit } from "../integration/web/support";
import { advance, type E2e, nowOf, STATUSPILOT_APP, settle, TEAM } from "./support";

/** The Home tab and the app's DMs as a test outside the process sees them: over HTTP. */

export type Json = Record<string, unknown>;

export interface Button {
  action_id: string;
  text: { text: string };
  url?: string;
}

export interface DirectMessage {
  user: string;
  text: string;
  blocks?: Json[];
  ts: string;
}

const repoRoot = path.resolve(fileURLToPath(import.meta.url), "../../..");
export const signingSecret =
  loadWorkspace(path.join(repoRoot, "emulator/demo-workspace.json")).apps.find(
    (a) => a.id === STATUSPILOT_APP,
  )?.signing_secret ?? "";

export async function emulatorState(
  e: E2e,
): Promise<{ home_views: Record<string, Json>; messages: DirectMessage[] }> {
  const res = await fetch(`${e.emulatorUrl}/_emulator/state`);
  return (await res.json()) as { home_views: Record<string, Json>; messages: DirectMessage[] };
}

/** POSTs a person's action to the emulator (`home_opened`, `click`). */
export async function personDoes(
  e: E2e,
  what: "home_opened" | "click",
  body: Json,
): Promise<{ status: number; body: Json; tookMs: number }> {
  const started = performance.now();
  const res = await fetch(`${e.emulatorUrl}/_emulator/${what}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as Json;
  return { status: res.status, body: answer, tookMs: performance.now() - started };
}

/**
 * Lets what a delivery queued run: the emulator's delivery, then the stack's queues, whose
 * messages the hand-moved clock releases (a second of it).
 */
export async function runQueued(e: E2e): Promise<void> {
  await settle(e);
  await advance(e, 1000);
}

/** The person opens the Home tab, and the view the app publishes for it. */
export async function openHome(e: E2e, user: string): Promise<Json | undefined> {
  const opened = await personDoes(e, "home_opened", { user });
  if (opened.status !== 200) throw new Error(`home_opened answered ${opened.status}`);
  await runQueued(e);
  return (await emulatorState(e)).home_views[user];
}

export const buttonsOf = (view: Json | undefined): Button[] =>
  ((view?.blocks ?? []) as Json[]).flatMap((b) =>
    b.type === "actions"
      ? (b.elements as Button[])
      : b.accessory !== undefined
        ? [b.accessory as Button]
        : [],
  );

/** Every text of a view's blocks, one string, to look for words in. */
export const textOf = (view: Json | undefined): string => JSON.stringify(view?.blocks ?? []);

export const messagesTo = async (e: E2e, user: string): Promise<DirectMessage[]> =>
  (await emulatorState(e)).messages.filter((m) => m.user === user);

/** /install → the service's consent as `user` → the callback: signed in, in `jar`. */
export async function installAs(e: E2e, user: string, jar = new CookieJar()): Promise<CookieJar> {
  const install = await visit(jar, `${e.url}/install`);
  const authorize = new URL(install.headers.get("location") ?? "");
  authorize.searchParams.set("as", user);
  const consent = await visit(jar, authorize.href);
  const callback = await visit(jar, consent.headers.get("location") ?? "");
  if (callback.headers.get("location") !== "/settings") {
    throw new Error(`install ended at ${callback.status} ${callback.headers.get("location")}`);
  }
  return jar;
}

export async function settingsHtml(
  e: E2e,
  jar: CookieJar,
): Promise<{ status: number; html: string }> {
  const res = await visit(jar, `${e.url}/settings`);
  return { status: res.status, html: await res.text() };
}

/** Sends one of the settings page's forms, with the page's CSRF token; the redirect's target. */
export async function postSettings(
  e: E2e,
  jar: CookieJar,
  route: string,
  form: Record<string, string> = {},
): Promise<string> {
  const { html } = await settingsHtml(e, jar);
  const res = await visit(jar, `${e.url}${route}`, { form: { csrf: csrfOf(html), ...form } });
  return res.headers.get("location") ?? `status ${res.status}`;
}

/**
 * POSTs `form` to `route` signed as the service signs it (`at`, epoch s; else the stack's now),
 * or with `signature`, or signed with another `secret`.
 */
export async function postSignedForm(
  e: E2e,
  route: string,
  form: URLSearchParams,
  opts: { at?: number; signature?: string; secret?: string } = {},
): Promise<Response> {
  const body = form.toString();
  const ts = opts.at ?? Math.floor((await nowOf(e)) / 1000);
  return fetch(`${e.url}${route}`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-svc-request-timestamp": String(ts),
      "x-svc-signature": opts.signature ?? signV0(opts.secret ?? signingSecret, ts, body),
    },
    body,
  });
}

/** POSTs `doc` as JSON to `route`, signed as the service signs its events. */
export async function postSignedJson(e: E2e, route: string, doc: Json): Promise<Response> {
  const body = JSON.stringify(doc);
  const ts = Math.floor((await nowOf(e)) / 1000);
  return fetch(`${e.url}${route}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-svc-request-timestamp": String(ts),
      "x-svc-signature": signV0(signingSecret, ts, body),
    },
    body,
  });
}

/** A click's `block_actions` payload, as the service POSTs it to the interactive route. */
export const postInteraction = (
  e: E2e,
  payload: Json,
  opts: { at?: number; signature?: string; secret?: string } = {},
): Promise<Response> =>
  postSignedForm(
    e,
    "/service/interactive",
    new URLSearchParams({ payload: JSON.stringify(payload) }),
    opts,
  );

/** Types `/statuspilot <text>` as `user`; the reply's text and its wall time. */
export async function statuspilot(
  e: E2e,
  text: string,
  user: string,
): Promise<{ status: number; text: string; tookMs: number }> {
  const started = performance.now();
  const res = await postSignedForm(
    e,
    "/service/commands/statuspilot",
    new URLSearchParams({ team_id: TEAM, user_id: user, command: "/statuspilot", text }),
  );
  const reply = (await res.json()) as { text: string };
  return { status: res.status, text: reply.text, tookMs: performance.now() - started };
}

/**
 * What a person whose calendar's grant was refused is shown: one message since `before` (the
 * count of their messages then) carrying the way to connect `route` again, and the Home tab's
 * Reconnect going there too.
 */
export async function expectToldToReconnect(
  e: E2e,
  user: string,
  before: number,
  route: string,
): Promise<void> {
  const view = await openHome(e, user);
  const told = (await messagesTo(e, user)).slice(before);
  expect(told).toHaveLength(1);
  expect(textOf({ blocks: told[0]?.blocks })).toContain(`${e.url}${route}`);
  const reconnect = buttonsOf(view).find((b) => b.action_id === "reconnect");
  expect(reconnect?.url).toBe(`${e.url}${route}`);
}
