import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { App } from "#lib/app/compose/app";
import { compose } from "#lib/app/compose/compose";
import { botModule, oauthModule, serviceModule } from "#lib/app/compose/modules";
import { loadConfig } from "#lib/app/config";
import { homeSettingsLink } from "#lib/web/settings-link";
import {
  CLIENT_ID,
  CookieJar,
  csrfOf,
  type FrontDoorStack,
  installUser,
  startFrontDoor,
  TOKEN_KEY,
  visit,
} from "./support";

// The Home tab's "Open settings" link (issue 26) from the worker that publishes the Home tab to
// the web function, over one table: made by an app that has no web key and no SSM module (as
// the transition worker's), it signs its person in once, for 5 minutes, under the session epoch
// they had when it was made; anything else answers the sign-in page and signs nobody in.

const TEAM = "T0DEMO";
const FIVE_MINUTES = 5 * 60_000;
let stack: FrontDoorStack;
let worker: App;

beforeEach(async () => {
  stack = await startFrontDoor();
  // The transition worker's view of the same table: the web key only as an SSM name, and no
  // module to read SSM with; making a link must need neither.
  worker = compose(
    loadConfig({
      TABLE_NAME: stack.dynamo.tableName,
      DYNAMODB_ENDPOINT: stack.dynamo.endpoint,
      SERVICE_BASE_URL: stack.emulator.apiBase,
      SIGNING_SECRET_PARAM: "/statuspilot/test/signing-secret",
      TOKEN_KEY,
      LOG_LEVEL: "SILENT",
      OAUTH_CLIENT_ID: CLIENT_ID,
      OAUTH_CLIENT_SECRET_PARAM: "/statuspilot/test/oauth-client-secret",
      WEB_KEY_PARAM: "/statuspilot/test/web-key",
      PUBLIC_BASE_URL: stack.web,
    }),
    {
      modules: { bot: botModule, service: serviceModule, oauth: oauthModule },
      clock: stack.clock,
      syncQueue: { send: async () => {} },
      transitionQueue: { send: async () => {} },
    },
  );
});
afterEach(async () => {
  await stack.close();
});

/** The link the Home tab of `user` shows now, made as the transition worker makes it. */
async function linkOf(user: string): Promise<string> {
  const key = { team: TEAM, user };
  const epoch = (await stack.app.frontDoor?.useCases.selfView(key))?.sessionEpoch;
  if (epoch === undefined) throw new Error(`${user} has no session epoch`);
  const link = await homeSettingsLink(worker, { ...key, epoch });
  if (link === undefined) throw new Error("no link: the app has no front door");
  return link;
}

/** Opens `link` in a fresh browser, then its settings page; what the person sees. */
async function open(link: string) {
  const browser = new CookieJar();
  const res = await visit(browser, link);
  const html = res.status === 302 ? "" : await res.text();
  const settings = await visit(browser, `${stack.web}/settings`);
  return { status: res.status, location: res.headers.get("location"), html, settings };
}

describe("the Home tab's settings link over HTTP", () => {
  it("signs its person in once, and stores no key material: a random id and whom it names", async () => {
    // Prepare
    await installUser(stack, "U001");
    const link = await linkOf("U001");
    const token = new URL(link).searchParams.get("link") ?? "";
    // Act
    const first = await open(link);
    const replayed = await open(link);
    // Assess
    expect(link.startsWith(`${stack.web}/settings/open?link=`)).toBe(true);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.status).toBe(302);
    expect(first.location).toBe("/settings");
    expect(first.settings.status).toBe(200);
    expect(csrfOf(await first.settings.text())).toBeTruthy();
    expect(replayed.status).toBe(400);
    expect(replayed.html).toContain("already used");
    expect(replayed.settings.headers.get("location")).toBe("/install");
    const grants = (await stack.scan()).filter((item) => String(item.PK).startsWith("GRANT#"));
    expect(grants).toHaveLength(1);
    expect(grants[0]?.payload).toMatch(/^\["T0DEMO","U001",\d+\]$/);
  });

  it("answers the sign-in page to a link past its 5 minutes, or one it never made", async () => {
    // Prepare
    await installUser(stack, "U001");
    const link = await linkOf("U001");
    const unknown = new URL(link);
    unknown.searchParams.set("link", "B".repeat(43));
    // Act
    stack.clock.advance(FIVE_MINUTES);
    const late = await open(link);
    const never = await open(unknown.href);
    // Assess
    expect(late.status).toBe(400);
    expect(late.html).toContain("more than 5 minutes old");
    expect(never.status).toBe(400);
    expect(never.html).toContain("knows no such link");
    for (const refused of [late, never]) {
      expect(refused.html).toContain("Sign in");
      expect(refused.settings.headers.get("location")).toBe("/install");
    }
  });

  it("refuses a link made before a disconnect, even after the person installs again", async () => {
    // Prepare: a link made, then a disconnect and a new install (a new session epoch).
    const { jar } = await installUser(stack, "U001");
    const link = await linkOf("U001");
    const page = await (await visit(jar, `${stack.web}/settings`)).text();
    await visit(jar, `${stack.web}/settings/disconnect`, {
      form: { csrf: csrfOf(page), confirm: "on" },
    });
    stack.clock.advance(60_000);
    await installUser(stack, "U001");
    // Act
    const stale = await open(link);
    // Assess
    expect(stale.status).toBe(400);
    expect(stale.html).toContain("made before you disconnected");
    expect(stale.settings.headers.get("location")).toBe("/install");
  });
});
