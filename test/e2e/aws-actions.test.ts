import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadWorkspace } from "#emulator/server";
import { demoEvents } from "#lib/local/demo-feed";
import { signV0 } from "../../lib/webhooks";
import { type CfnResource, type PackagedStack, packageStack } from "../support/osls-package";
import { type ActionRecorder, recordAwsActions } from "./aws-action-recorder";
import { NOT_CALLED_HERE } from "./aws-actions-unexercised";
import { postInteraction } from "./home-support";
import { deniedCalls, grantsOf, roleOf } from "./role-grants";
import {
  advance,
  type E2e,
  event,
  nowOf,
  publishAndPush,
  STATUSPILOT_APP,
  settle,
  startE2e,
  TEAM,
  userSetsStatus,
} from "./support";

/**
 * Issue 11 §5: each function's role grants what its code calls, and nothing else. The local
 * stack runs every function through flows that reach each of them (onboarding, pushes, polls,
 * transitions, commands, events, the front door, the out-of-office API, an uninstall) while
 * the recorder notes each AWS action a function calls; then each call must be granted by that
 * function's role in the packaged CloudFormation, and each grant must have been used, or be
 * listed in ./aws-actions-unexercised.ts with the reason no flow here calls it.
 */

const S = 1000;
const MIN = 60 * S;
const TZ = "Europe/Berlin";
const repoRoot = path.resolve(fileURLToPath(import.meta.url), "../../..");
const signingSecret =
  loadWorkspace(path.join(repoRoot, "emulator/demo-workspace.json")).apps.find(
    (a) => a.id === STATUSPILOT_APP,
  )?.signing_secret ?? "";

let stack: PackagedStack | undefined;
let resources: Record<string, CfnResource> = {};
let e: E2e;
let recorder: ActionRecorder;

/** The signed form post the service sends for a slash command. */
async function command(name: "ooo" | "statuspilot", user: string, text: string): Promise<number> {
  const body = new URLSearchParams({ team_id: TEAM, user_id: user, command: `/${name}`, text });
  const ts = Math.floor((await nowOf(e)) / S);
  const res = await fetch(`${e.url}/service/commands/${name}`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-svc-request-timestamp": String(ts),
      "x-svc-signature": signV0(signingSecret, ts, body.toString()),
    },
    body: body.toString(),
  });
  await res.text();
  await settle(e);
  return res.status;
}

async function admin(method: string, route: string, body?: unknown): Promise<Response> {
  const res = await fetch(`${e.url}${route}`, {
    method,
    headers: { "x-api-key": e.adminApiKey, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  await settle(e);
  return res;
}

/** A browser's cookie jar, enough for the front door (one host). */
class Browser {
  private readonly cookies = new Map<string, string>();
  async go(url: string, form?: Record<string, string>): Promise<Response> {
    const res = await fetch(url, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair?.indexOf("=") ?? -1;
      if (pair && at > 0) this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    await settle(e);
    return res;
  }
}

/**
 * A newcomer installs through the front door, adds a calendar (`feedOf`'s), pauses, resumes
 * and disconnects.
 */
async function frontDoor(user: string, feedOf: string): Promise<void> {
  const b = new Browser();
  const toConsent = await b.go(e.installUrl);
  const consent = new URL(toConsent.headers.get("location") ?? "");
  const allowed = await b.go(`${consent.origin}${consent.pathname}`, {
    ...Object.fromEntries(consent.searchParams),
    decision: "allow",
    as: user,
  });
  const back = await b.go(allowed.headers.get("location") ?? "");
  expect(back.headers.get("location")).toBe("/settings");
  const settings = await (await b.go(`${e.url}/settings`)).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(settings)?.[1] ?? "";
  expect(csrf).not.toBe("");
  const added = await b.go(`${e.url}/settings/calendars/add`, { csrf, url: e.feedUrl(feedOf) });
  expect(added.status).toBe(303);
  await advance(e, S);
  for (const step of ["pause", "resume"]) await b.go(`${e.url}/settings/${step}`, { csrf });
  await advance(e, S);
  const gone = await b.go(`${e.url}/settings/disconnect`, { csrf, confirm: "on" });
  expect(gone.status).toBeLessThan(400);
}

describe("each function's AWS calls against its role", () => {
  beforeAll(async () => {
    recorder = recordAwsActions();
    const packaging = packageStack();
    e = await startE2e({
      U001: { tz: TZ, events: demoEvents(Date.parse("2025-03-10T10:59:00.400Z"), TZ) },
      U002: { tz: TZ, events: [] },
    });
    stack = await packaging;
    resources = stack.resources;

    // The flows, one function after another.
    expect((await fetch(`${e.url}/health`)).status).toBe(200);
    const start = await nowOf(e);
    const onboarded = await admin("PUT", `/admin/users/${TEAM}/U004`, {
      tz: TZ,
      token: "xoxp-statuspilot-U004",
      sources: [
        { id: "cal1", url: e.feedUrl("U002"), kind: "generic", secret: "hook-secret-0001" },
      ],
    });
    expect(onboarded.status).toBe(200);
    await advance(e, S); // its first sync stores the calendar's timeline
    expect((await admin("GET", `/admin/users/${TEAM}/U004`)).status).toBe(200);
    const channel = { team: TEAM, user: "U004", sourceId: "cal1", secret: "chan-secret-0001" };
    const bound = await admin("PUT", "/admin/channels/chan-0123456789abcdef", {
      ...channel,
      kind: "generic",
    });
    expect(bound.status).toBe(200);
    // Rebinding without a kind reads the binding back.
    expect((await admin("PUT", "/admin/channels/chan-0123456789abcdef", channel)).status).toBe(200);
    const ooo = await admin("POST", `/admin/users/${TEAM}/U001/ooo`, {
      start: start + 60 * MIN,
      end: start + 120 * MIN,
    });
    expect(ooo.status).toBe(201);
    const { entry } = (await ooo.json()) as { entry: { id: string } };
    expect((await admin("GET", `/admin/users/${TEAM}/U001/ooo`)).status).toBe(200);
    expect(
      (await admin("DELETE", `/admin/users/${TEAM}/U001/ooo/${entry.id}`)).status,
    ).toBeLessThan(300);
    // Out of office from now: the reconcile sets it at once (and clears it when cancelled).
    const now = await admin("POST", `/admin/users/${TEAM}/U002/ooo`, {
      start: start - MIN,
      end: start + 30 * MIN,
    });
    expect(now.status).toBe(201);
    const current = ((await now.json()) as { entry: { id: string } }).entry.id;
    expect((await admin("DELETE", `/admin/users/${TEAM}/U002/ooo/${current}`)).status).toBe(200);
    // Onboarding again with another calendar drops the old one's timeline.
    const moved = await admin("PUT", `/admin/users/${TEAM}/U004`, {
      tz: TZ,
      token: "xoxp-statuspilot-U004",
      sources: [{ id: "cal2", url: e.feedUrl("U001"), kind: "ics" }],
    });
    expect(moved.status).toBe(200);
    // A push of a meeting under way: the sync's reconcile sets it.
    await publishAndPush(e, "U001", TZ, [
      event("now", "Planning", start - MIN, start + 20 * MIN),
      ...demoEvents(start, TZ),
    ]);
    expect(await command("ooo", "U002", "until 2025-03-12 Offsite")).toBe(200);
    expect(await command("ooo", "U002", "list")).toBe(200);
    const listed = (await (await admin("GET", `/admin/users/${TEAM}/U002/ooo`)).json()) as {
      entries: Array<{ id: string }>;
    };
    expect(await command("ooo", "U002", `cancel ${listed.entries[0]?.id ?? ""}`)).toBe(200);
    expect(await command("statuspilot", "U002", "pause")).toBe(200);
    expect(await command("statuspilot", "U002", "resume")).toBe(200);
    // Sync now: typed (reads U002's calendars now) and clicked on U001's Home tab.
    expect(await command("statuspilot", "U002", "sync")).toBe(200);
    const clicked = await postInteraction(
      e,
      {
        type: "block_actions",
        team: { id: TEAM },
        user: { id: "U001", team_id: TEAM },
        actions: [{ action_id: "sync_now", type: "button" }],
      },
      { secret: signingSecret },
    );
    expect(clicked.status).toBe(200);
    await userSetsStatus(e, "U001", { status_text: "Lunch", status_emoji: ":pizza:" });
    // Ticks, polls, transitions and syncs: the meeting starts, a poll runs.
    await advance(e, 6 * MIN);
    // The workspace's admin has not installed it yet.
    await frontDoor("U0ADMIN", "U002");
    const uninstalled = await fetch(`${e.emulatorUrl}/_emulator/uninstall`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ app: STATUSPILOT_APP }),
    });
    expect(uninstalled.status).toBe(200);
    await settle(e);
    await advance(e, MIN);
  }, 240_000);

  afterAll(async () => {
    recorder?.restore();
    await e?.close();
    await stack?.remove();
  });

  it("ran every function", () => {
    const ran = new Set(recorder.calls().map((c) => c.functionName));
    // health calls nothing: it is covered by its role granting nothing but its logs.
    expect([...ran].sort()).toEqual(
      [
        "adminOoo",
        "adminUsers",
        "calendarHooks",
        "oooCommand",
        "poll",
        "serviceEvents",
        "serviceInteractive",
        "statuspilotCommand",
        "syncWorker",
        "tick",
        "transitionWorker",
        "web",
        "webCalendars",
      ].sort(),
    );
  });

  it("grants every action each function called", () => {
    const denied = deniedCalls(stack, recorder.calls());
    expect(denied).toEqual([]);
  });

  it("grants nothing no function called, except what the list above explains", () => {
    const called = recorder.calls();
    const roles = Object.entries(resources)
      .filter(([, r]) => r.Type === "AWS::IAM::Role")
      .map(([role]) => role);
    const unused = roles.flatMap((role) =>
      grantsOf(stack, role)
        .filter(
          (g) =>
            !called.some(
              (c) =>
                roleOf(c.functionName) === role &&
                c.action === g.action &&
                (c.on === g.on || g.on === "*"),
            ),
        )
        .filter(
          (g) =>
            !NOT_CALLED_HERE.some(
              (u) =>
                (u.role === "*" || u.role === role) &&
                u.action === g.action &&
                (u.on === undefined || u.on === g.on),
            ),
        )
        .map((g) => `${role} ${g.action} on ${g.on}`),
    );
    expect([...new Set(unused)]).toEqual([]);
  });
});
