import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type CookieJar,
  csrfOf,
  type FrontDoorStack,
  signedInAs,
  startFrontDoor,
  visit,
} from "./support";

// What the settings page shows right after a form, over HTTP against the web function (issue
// 28 items 5 to 7). Expectations are the words a person would read, written out by hand.

let stack: FrontDoorStack;

beforeEach(async () => {
  stack = await startFrontDoor();
});
afterEach(async () => {
  await stack.close();
});

const installAs = (user: string): Promise<CookieJar> => signedInAs(stack, user);

const settingsHtml = async (jar: CookieJar): Promise<string> =>
  (await visit(jar, `${stack.web}/settings`)).text();

/** Sends a form of the page with this session's CSRF token. */
async function post(jar: CookieJar, path: string, form: Record<string, string>) {
  const csrf = csrfOf(await settingsHtml(jar));
  return visit(jar, `${stack.web}${path}`, { form: { csrf, ...form } });
}

/** A section's text, tags dropped. */
const sectionText = (html: string, id: string): string =>
  (new RegExp(`<section aria-labelledby="${id}">([\\s\\S]*?)</section>`).exec(html)?.[1] ?? "")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();

describe("out-of-office dates (issue 28 item 5)", () => {
  it("lists whole days as picked, in the locale of the person's rules", async () => {
    // Prepare: a person in Berlin whose rules ask for German dates.
    const jar = await installAs("U001");
    await stack.app.frontDoor?.useCases.saveRules(
      { team: "T0DEMO", user: "U001" },
      {
        locale: "de-DE",
      },
    );
    // Act: away from Wednesday 7 to Thursday 8 January 2026.
    await post(jar, "/settings/ooo/add", { first_day: "2026-01-07", last_day: "2026-01-08" });
    const html = await settingsHtml(jar);
    // Assess
    const listed = sectionText(html, "ooo");
    expect(listed).toMatch(/Mi\., 7\.( Jan\.)? – Do\., 8\. Jan\./);
    expect(listed).not.toContain("00:00");
  });
});
