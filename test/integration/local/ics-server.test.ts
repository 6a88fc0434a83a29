import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "#lib/core/clock";
import { demoEvents, renderIcs } from "#lib/local/demo-feed";
import { type IcsServer, startIcsServer } from "#lib/local/ics-server";

const clock = new ManualClock(Date.parse("2025-03-10T11:00:00Z"));
let server: IcsServer;
const feed = renderIcs(demoEvents(clock.now(), "Europe/Berlin"), clock.now());

beforeAll(async () => {
  server = await startIcsServer({ clock, feeds: { "/u001.ics": feed } });
});
afterAll(() => server.close());

describe("the loopback ICS server", () => {
  it("serves a feed with an ETag and answers 304 to a matching If-None-Match", async () => {
    // Act
    const first = await fetch(server.feedUrl("/u001.ics"));
    const etag = first.headers.get("etag") ?? "";
    const second = await fetch(server.feedUrl("/u001.ics"), { headers: { "if-none-match": etag } });
    // Assess
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("text/calendar; charset=utf-8");
    expect(await first.text()).toBe(feed);
    expect(second.status).toBe(304);
    expect(server.fetches("/u001.ics")).toBe(2);
  });

  it("replaces a feed on PUT, which changes its ETag", async () => {
    // Prepare
    const before = (await fetch(server.feedUrl("/u001.ics"))).headers.get("etag");
    const changed = feed.replace("Team stand-up", "Moved stand-up");
    // Act
    const put = await fetch(server.feedUrl("/u001.ics"), { method: "PUT", body: changed });
    const after = await fetch(server.feedUrl("/u001.ics"));
    // Assess
    expect(put.status).toBe(204);
    expect(after.headers.get("etag")).not.toBe(before);
    expect(await after.text()).toContain("Moved stand-up");
  });

  it("refuses a PUT that is not a calendar and keeps the old feed", async () => {
    // Act
    const put = await fetch(server.feedUrl("/u001.ics"), { method: "PUT", body: "hello" });
    const after = await fetch(server.feedUrl("/u001.ics"));
    // Assess
    expect(put.status).toBe(400);
    expect(await put.text()).toBe("body is not an ICS calendar\n");
    expect(await after.text()).toContain("BEGIN:VCALENDAR");
  });

  it("answers 404 for an unknown feed", async () => {
    expect((await fetch(server.feedUrl("/nobody.ics"))).status).toBe(404);
  });
});
