import { describe, expect, it } from "vitest";
import { parseWorkspace, WorkspaceError } from "#emulator/workspace";
import { conformanceWorkspace } from "../service/harness";

/** The conformance workspace with A0MAIN's events going to `requestUrl`. */
function withRequestUrl(requestUrl: string): unknown {
  const ws = conformanceWorkspace();
  const main = ws.apps.find((a) => a.id === "A0MAIN");
  if (main) {
    main.manifest.settings = {
      event_subscriptions: { request_url: requestUrl, user_events: ["user_change"] },
    };
  }
  return ws;
}

describe("workspace file: app manifests", () => {
  it.each([
    "http://127.0.0.1:3000/service/events",
    "http://localhost:3000/service/events",
    "http://[::1]:3000/service/events",
    "https://statuspilot.example/service/events",
  ])("loads a manifest whose request_url is %s, stored as written", (url) => {
    // Act
    const ws = parseWorkspace(withRequestUrl(url));
    // Assess
    const main = ws.apps.find((a) => a.id === "A0MAIN");
    expect(main?.manifest.settings).toMatchObject({ event_subscriptions: { request_url: url } });
  });

  it.each([
    "http://statuspilot.example/service/events",
    "http://127.0.0.1.evil.example/service/events",
  ])("refuses a manifest whose request_url is the non-loopback http URL %s", (url) => {
    // Act
    const act = () => parseWorkspace(withRequestUrl(url));
    // Assess
    expect(act).toThrow(WorkspaceError);
    try {
      act();
    } catch (error: unknown) {
      expect(error).toBeInstanceOf(WorkspaceError);
      const index = conformanceWorkspace().apps.findIndex((a) => a.id === "A0MAIN");
      expect((error as WorkspaceError).pointer).toBe(
        `/apps/${index}/manifest/settings/event_subscriptions/request_url`,
      );
      expect((error as Error).message).toContain("https");
    }
  });

  it("refuses a manifest that breaks another rule, naming it by pointer", () => {
    // Prepare
    const ws = conformanceWorkspace() as unknown as {
      apps: { manifest: Record<string, unknown> }[];
    };
    const first = ws.apps[0];
    if (first) first.manifest.display_information = { name: "x".repeat(36) };
    // Act
    const act = () => parseWorkspace(ws);
    // Assess
    expect(act).toThrow(/\/apps\/0\/manifest\/display_information\/name: manifest: .*35/);
  });
});
