import { describe, expect, it } from "vitest";
import type { WebErrorCode } from "#lib/web/errors";
import {
  renderErrorPage,
  renderInstallStateErrorPage,
  renderNothingInstalledPage,
} from "../../../../lib/web/pages/messages";
import { tags, textOf } from "./html";

describe("install flow pages", () => {
  it("answers a bad, expired or replayed state with a 400 page that offers to start again", () => {
    const codes: WebErrorCode[] = ["malformed", "bad_signature", "expired", "replayed"];
    for (const code of codes) {
      // Act
      const page = renderInstallStateErrorPage(code);
      // Assess
      expect(page.status).toBe(400);
      expect(textOf(page.html)).toContain("Nothing was changed");
      expect(tags(page.html, "a").map((a) => a.attrs.href)).toEqual(["/install"]);
      expect(page.html).not.toContain("<form");
    }
    expect(textOf(renderInstallStateErrorPage("expired").html)).toContain("10 minutes");
    expect(textOf(renderInstallStateErrorPage("replayed").html)).toContain("already used");
  });

  it("tells a person who cancelled that nothing was installed", () => {
    // Act
    const page = renderNothingInstalledPage();
    // Assess
    expect(page.status).toBe(200);
    expect(textOf(page.html)).toContain("Nothing was installed");
  });

  it("escapes what an error page is given", () => {
    // Act
    const page = renderErrorPage({
      status: 502,
      title: "<script>x</script>",
      message: `"><img onerror=1>`,
    });
    // Assess
    expect(page.status).toBe(502);
    expect(page.html).not.toMatch(/<script|<img/);
    expect(textOf(page.html)).toContain(`"><img onerror=1>`);
  });
});
