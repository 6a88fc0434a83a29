import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  type ConnectionState,
  SETTINGS_ACTIONS,
  type SettingsView,
} from "#lib/web/pages/view-model";
import { PAGE_HEADERS, renderPage } from "../../../../lib/web/pages/layout";
import { MessagePage } from "../../../../lib/web/pages/messages";
import { renderSettingsPage } from "../../../../lib/web/pages/settings";
import { NOW, settingsView } from "./fixtures";
import { forms, tags, textOf } from "./html";

// The rules of the page (issue: "works without JavaScript, each form carries a CSRF token, each
// input has a <label>, readable on a phone, escape everything"), checked on the rendered HTML.

const HOSTILE = [`<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`, `' onmouseover='x`];

/** Variants that between them render every part of the page. */
const VIEWS: Record<string, SettingsView> = {
  connected: settingsView(),
  revoked: settingsView({ connection: "revoked", paused: true }),
  empty: settingsView({
    calendars: [],
    ooo: [],
    today: { blocks: [] },
    notice: { tone: "error", text: "That address did not answer." },
  }),
};

describe("settings page", () => {
  it("gives every input, text area and select a label naming it", () => {
    for (const [name, view] of Object.entries(VIEWS)) {
      // Act
      const html = renderSettingsPage(view);
      const labelled = new Set(tags(html, "label").map((l) => l.attrs.for));
      const fields = tags(html).filter(
        (t) =>
          ["input", "textarea", "select"].includes(t.name) &&
          !["hidden", "submit"].includes(t.attrs.type ?? ""),
      );
      // Assess
      expect(fields.length, name).toBeGreaterThan(0);
      for (const f of fields) {
        expect({ view: name, field: f.attrs.name, labelled: labelled.has(f.attrs.id) }).toEqual({
          view: name,
          field: f.attrs.name,
          labelled: true,
        });
      }
      const ids = tags(html)
        .map((t) => t.attrs.id)
        .filter((id) => id !== undefined);
      expect(new Set(ids).size, `${name}: ids are unique`).toBe(ids.length);
    }
  });

  it("puts this session's CSRF token in every form, and posts every form", () => {
    for (const [name, view] of Object.entries(VIEWS)) {
      // Act
      const html = renderSettingsPage(view);
      const all = forms(html);
      // Assess
      expect(all.length, name).toBe(tags(html, "form").length);
      for (const form of all) {
        const csrf = tags(form.inner, "input").filter((i) => i.attrs.name === "csrf");
        expect({ view: name, action: form.action, method: form.method, csrf }).toEqual({
          view: name,
          action: form.action,
          method: "post",
          csrf: [
            expect.objectContaining({
              attrs: expect.objectContaining({ type: "hidden", value: view.csrfToken }),
            }),
          ],
        });
      }
    }
  });

  it("offers every action as a form: add and remove calendars, sync now, rules, pause, out-of-office, disconnect, sign out", () => {
    // Act
    const running = forms(renderSettingsPage(VIEWS.connected as SettingsView)).map((f) => f.action);
    const paused = forms(renderSettingsPage(VIEWS.revoked as SettingsView)).map((f) => f.action);
    // Assess
    expect(new Set(running)).toEqual(
      new Set([
        SETTINGS_ACTIONS.addCalendar,
        SETTINGS_ACTIONS.removeCalendar,
        SETTINGS_ACTIONS.saveRules,
        SETTINGS_ACTIONS.pause,
        SETTINGS_ACTIONS.scheduleOoo,
        SETTINGS_ACTIONS.cancelOoo,
        SETTINGS_ACTIONS.disconnect,
        SETTINGS_ACTIONS.signOut,
        SETTINGS_ACTIONS.syncNow,
      ]),
    );
    expect(running.filter((a) => a === SETTINGS_ACTIONS.removeCalendar)).toHaveLength(2);
    expect(paused).toContain(SETTINGS_ACTIONS.resume);
    expect(paused).not.toContain(SETTINGS_ACTIONS.pause);
  });

  it("asks for a ticked confirmation before disconnecting", () => {
    // Act
    const html = renderSettingsPage(settingsView());
    const form = forms(html).find((f) => f.action === SETTINGS_ACTIONS.disconnect);
    // Assess
    const boxes = tags(form?.inner ?? "", "input").filter((i) => i.attrs.type === "checkbox");
    expect(boxes).toEqual([
      expect.objectContaining({
        attrs: expect.objectContaining({ name: "confirm", required: "" }),
      }),
    ]);
  });

  it("shows Reconnect, linking to the install, exactly when the token was revoked or expired", () => {
    const states: ConnectionState[] = ["connected", "revoked", "expired"];
    for (const connection of states) {
      // Act
      const html = renderSettingsPage(settingsView({ connection }));
      const reconnect = [...html.matchAll(/(<a[^>]*>)Reconnect<\/a>/g)].flatMap((m) =>
        tags(m[1] ?? ""),
      );
      // Assess
      expect({ connection, links: reconnect.map((a) => a.attrs.href) }).toEqual({
        connection,
        links: connection === "connected" ? [] : ["/install"],
      });
    }
  });

  it("escapes hostile calendar names, status texts, keywords, messages and names everywhere", () => {
    for (const evil of HOSTILE) {
      // Prepare: the hostile string in every place the page shows data.
      const block = {
        start: NOW - 60_000,
        end: NOW + 60_000,
        text: evil,
        emoji: evil,
        kind: "meeting" as const,
      };
      const view = settingsView({
        csrfToken: evil,
        user: { id: "U1", team: "T1", name: evil, tz: "Europe/Berlin" },
        notice: { tone: "info", text: evil },
        calendars: [{ id: evil, label: evil, problem: evil }],
        today: {
          blocks: [block],
          current: { text: evil, emoji: evil },
          next: { at: NOW + 60_000, status: { text: evil, emoji: evil } },
          events: [
            {
              start: NOW,
              end: NOW + 60_000,
              allDay: false,
              title: evil,
              status: { text: evil, emoji: evil },
              rule: evil,
            },
          ],
        },
        rules: {
          kinds: {
            meeting: { text: evil, emoji: evil, keywords: [evil] },
            focus: { text: evil, emoji: evil, keywords: [evil, evil] },
            ooo: { text: evil, emoji: evil, keywords: [] },
          },
          showTitles: true,
          skipTentative: false,
          custom: [
            {
              name: evil,
              text: evil,
              emoji: evil,
              priority: 50,
              keywords: [evil],
              calendars: [evil],
              dnd: false,
            },
          ],
          skipCalendars: [evil],
          workingHours: {
            days: ["mon"],
            start: "09:00",
            end: "17:00",
            text: evil,
            emoji: evil,
            dnd: false,
          },
        },
        ooo: [{ id: evil, start: NOW, end: NOW + 86_400_000, message: evil }],
      });
      // Act
      const html = renderSettingsPage(view);
      // Assess: only the page's own elements, no handler attributes, and the text intact.
      const allowed = new Set(
        "html head meta title style body main h1 h2 h3 p span section a ul li div form input button label fieldset legend textarea select option".split(
          " ",
        ),
      );
      for (const t of tags(html)) {
        expect({ evil, tag: t.name, allowed: allowed.has(t.name) }).toEqual({
          evil,
          tag: t.name,
          allowed: true,
        });
        expect(Object.keys(t.attrs).filter((a) => a.startsWith("on"))).toEqual([]);
      }
      expect(html).not.toContain("<script");
      expect(html).not.toContain("<img");
      expect(textOf(html)).toContain(evil);
      expect(tags(html, "input").filter((i) => i.attrs.value === evil).length).toBeGreaterThan(3);
    }
  });

  it("works without JavaScript and without external assets, and fits a phone", () => {
    // Act
    const html = renderSettingsPage(settingsView());
    // Assess
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).not.toMatch(/<script|<link|<iframe|\ssrc=|javascript:/i);
    expect(tags(html, "meta").map((m) => m.attrs)).toContainEqual({
      name: "viewport",
      content: "width=device-width, initial-scale=1",
    });
  });

  it("allows its one style sheet by hash in the Content-Security-Policy, and no script", () => {
    // Act
    const html = renderSettingsPage(settingsView());
    const css = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? "";
    const hash = createHash("sha256").update(css, "utf8").digest("base64");
    const csp = PAGE_HEADERS["content-security-policy"] ?? "";
    // Assess
    expect(csp).toContain(`style-src 'sha256-${hash}'`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it("shows today's timeline, now and the next change in the user's zone", () => {
    // Act: 09:15 UTC is 10:15 in Berlin and 04:15 in New York on 3 March 2025.
    const berlin = textOf(renderSettingsPage(settingsView()));
    const newYork = textOf(
      renderSettingsPage(settingsView({ user: { id: "U1", team: "T1", tz: "America/New_York" } })),
    );
    // Assess
    // Emoji as emoji: 🗓️ is U+1F5D3 U+FE0F, 🎧 U+1F3A7.
    expect(berlin).toContain("10:00–11:00 \u{1F5D3}\uFE0F In a meeting (now)");
    expect(berlin).toContain("14:00–16:00 \u{1F3A7} Focus time");
    expect(berlin).toContain("Now: \u{1F5D3}\uFE0F In a meeting until 11:00");
    expect(berlin).not.toContain(":spiral_calendar_pad: In a meeting (now)");
    expect(berlin).toContain("Next change: Mon, 3 Mar 2025, 11:00, status cleared");
    expect(newYork).toContain("04:00–05:00 \u{1F5D3}\uFE0F In a meeting (now)");
    expect(newYork).toContain("Times are shown in America/New_York");
  });

  it("offers out-of-office dates from today in the user's zone, and lists entries in it", () => {
    // Prepare: 23:30 UTC on 3 March is already 4 March in Berlin.
    const lateEvening = Date.UTC(2025, 2, 3, 23, 30);
    // Act
    const html = renderSettingsPage(settingsView({ now: lateEvening }));
    const dates = tags(html, "input").filter((i) => i.attrs.type === "date");
    // Assess: the entry runs from midnight 10 March to midnight 15 March, Berlin time: the
    // whole days from Monday 10 to Friday 14 (issue 28 item 5).
    expect(dates.map((d) => d.attrs.value)).toEqual(["2025-03-04", "2025-03-04"]);
    expect(textOf(html)).toMatch(/Mon 10( Mar)? – Fri 14 Mar Skiing/);
  });

  it("ticks the rule checkboxes as the rules say", () => {
    // Act
    const html = renderSettingsPage(settingsView());
    const box = (name: string) => tags(html, "input").find((i) => i.attrs.name === name)?.attrs;
    // Assess: the fixture shows no titles and skips tentative events.
    expect(box("show_titles")).not.toHaveProperty("checked");
    expect(box("skip_tentative")).toHaveProperty("checked");
  });

  it("renders the shared message frame from JSX as well", () => {
    // Act
    const html = renderPage(<MessagePage title={`<b>x</b>`} message="m" />);
    // Assess
    expect(tags(html, "b")).toEqual([]);
    expect(textOf(html)).toContain("<b>x</b>");
  });
});
