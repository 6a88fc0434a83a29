import { describe, expect, it } from "vitest";
import { foreignForm } from "#lib/web/form-origin";

const OURS = "https://statuspilot.example";

describe("where a settings form came from", () => {
  it.each([
    ["a modern browser on our page", { "sec-fetch-site": "same-origin", origin: OURS }],
    ["a browser with Fetch Metadata only", { "sec-fetch-site": "same-origin" }],
    ["the person's own action (Sec-Fetch-Site: none)", { "sec-fetch-site": "none" }],
    ["a browser with Origin only", { origin: OURS }],
    ["Origin with a trailing slash", { origin: `${OURS}/` }],
    ["a browser with a same-origin Referer only", { referer: `${OURS}/settings?notice=paused` }],
    ["no browser header at all (left to the CSRF token)", {}],
  ])("lets %s through", (_, headers) => {
    expect(foreignForm(headers, OURS)).toBeUndefined();
  });

  it.each([
    ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site" }, "cross_site_fetch"],
    ["Sec-Fetch-Site: same-site", { "sec-fetch-site": "same-site" }, "cross_site_fetch"],
    [
      "Sec-Fetch-Site: cross-site with our Origin",
      { "sec-fetch-site": "cross-site", origin: OURS },
      "cross_site_fetch",
    ],
    ["an unknown Sec-Fetch-Site", { "sec-fetch-site": "<b>x</b>" }, "cross_site_fetch"],
    ["another site's Origin", { origin: "https://evil.example" }, "foreign_origin"],
    ["our host over http", { origin: "http://statuspilot.example" }, "foreign_origin"],
    ["our host on another port", { origin: "https://statuspilot.example:8443" }, "foreign_origin"],
    ["a subdomain", { origin: "https://evil.statuspilot.example" }, "foreign_origin"],
    [
      "a look-alike suffix",
      { origin: "https://statuspilot.example.evil.example" },
      "foreign_origin",
    ],
    ["a garbled Origin", { origin: "not a url" }, "foreign_origin"],
    ["Origin: null", { origin: "null" }, "opaque_origin"],
    [
      "another site's Origin with our Referer",
      { origin: "https://evil.example", referer: `${OURS}/settings` },
      "foreign_origin",
    ],
    ["another site's Referer", { referer: "https://evil.example/page" }, "foreign_referer"],
    ["a garbled Referer", { referer: "::" }, "foreign_referer"],
  ])("refuses %s", (_, headers, reason) => {
    // Act
    const refused = foreignForm(headers, OURS);
    // Assess: a reason for the log, and words that never repeat what the header said
    expect(refused?.reason).toBe(reason);
    expect(refused?.message).not.toContain("evil");
    expect(refused?.message).not.toContain("<b>");
  });
});
