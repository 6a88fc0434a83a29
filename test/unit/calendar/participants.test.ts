import { describe, expect, it } from "vitest";
import { expand } from "#lib/calendar/expand";
import { guestCount, hasVideoLink } from "#lib/calendar/participants";

// What an ICS event says about a video call and about who else takes part, as the rules'
// `online` and `skipNoGuests` read it.

const event = (uid: string, lines: string[]) =>
  [
    "BEGIN:VEVENT",
    `UID:${uid}`,
    "DTSTAMP:20260301T000000Z",
    "DTSTART:20260302T090000Z",
    "DTEND:20260302T100000Z",
    `SUMMARY:${uid}`,
    ...lines,
    "END:VEVENT",
  ].join("\r\n");
const feed = (...events: string[]) =>
  ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...events, "END:VCALENDAR", ""].join(
    "\r\n",
  );
const read = (text: string, emails: string[] = ["me@example.com"]) =>
  Object.fromEntries(
    expand(text, {
      from: Date.UTC(2026, 2, 2),
      to: Date.UTC(2026, 2, 3),
      userZone: "UTC",
      userEmails: emails,
    }).occurrences.map((o) => [o.uid, { online: o.online === true, guests: o.guests }]),
  );

describe("an ICS event's video call", () => {
  it("is found in URL, LOCATION, DESCRIPTION, X-GOOGLE-CONFERENCE and Teams' own property", () => {
    const got = read(
      feed(
        event("url", ["URL:https://whereby.com/acme-standup"]),
        event("location", ["LOCATION:Zoom: https://us02web.zoom.us/j/8123?pwd=x"]),
        event("description", ["DESCRIPTION:Join: meet.google.com/abc-defg-hij\\nOr dial in"]),
        event("google", ["X-GOOGLE-CONFERENCE:https://meet.google.com/xyz-abcd-efg"]),
        event("teams", [
          "X-MICROSOFT-SKYPETEAMSMEETINGURL:https://teams.microsoft.com/l/meetup-join/19%3a",
        ]),
        event("webex", ["DESCRIPTION:https://acme.webex.com/acme/j.php?MTID=m1"]),
        event("room", ["LOCATION:Room 4 (zoom.usability lab)"]),
        event("plain", ["LOCATION:Kitchen", "DESCRIPTION:see https://example.com/zoom.us"]),
      ),
    );
    expect(Object.fromEntries(Object.entries(got).map(([k, v]) => [k, v.online]))).toEqual({
      url: true,
      location: true,
      description: true,
      google: true,
      teams: true,
      webex: true,
      room: false,
      plain: false,
    });
  });

  it("is any of the five services' addresses, on their host or a subdomain", () => {
    expect(hasVideoLink("https://zoomgov.com/j/1", "x")).toBe(true);
    expect(hasVideoLink("teams.live.com/meet/93")).toBe(true);
    expect(hasVideoLink("https://notzoom.us/j/1")).toBe(false);
    expect(hasVideoLink("https://zoom.us.evil.example/j/1")).toBe(false);
    expect(hasVideoLink("mail help@zoom.us")).toBe(false);
    expect(hasVideoLink(undefined, "")).toBe(false);
  });
});

describe("an ICS event's guests", () => {
  it("are the attendees and the organizer who are not the user, rooms and resources left out", () => {
    const got = read(
      feed(
        event("alone", ["ORGANIZER:mailto:me@example.com"]),
        event("one-on-one", [
          "ORGANIZER:mailto:bo@example.com",
          "ATTENDEE;PARTSTAT=ACCEPTED:mailto:ME@example.com",
          "ATTENDEE:mailto:bo@example.com",
        ]),
        event("room-only", [
          "ORGANIZER:mailto:me@example.com",
          "ATTENDEE;CUTYPE=ROOM:mailto:room4@example.com",
          "ATTENDEE;CUTYPE=RESOURCE:mailto:projector@example.com",
        ]),
        event("by-email-param", [
          'ATTENDEE;EMAIL="me@example.com":urn:uuid:1',
          'ATTENDEE;EMAIL="cy@example.com":urn:uuid:2',
        ]),
        event("no-one", []),
      ),
    );
    expect(Object.fromEntries(Object.entries(got).map(([k, v]) => [k, v.guests]))).toEqual({
      alone: 0,
      "one-on-one": 1,
      "room-only": 0,
      "by-email-param": 1,
      "no-one": 0,
    });
  });

  it("take one listed person for the user when the user's addresses are not known", () => {
    expect(guestCount(["a@x", "b@x"], new Set(), true)).toBe(1);
    expect(guestCount(["a@x", "A@x"], new Set(), true)).toBe(0);
    expect(guestCount(["a@x", "b@x"], new Set(), false)).toBe(2);
    expect(guestCount(["a@x", "b@x"], new Set(["a@x"]), true)).toBe(1);
    const got = read(
      feed(event("pair", ["ORGANIZER:mailto:bo@example.com", "ATTENDEE:mailto:me@example.com"])),
      [],
    );
    expect(got.pair?.guests).toBe(1);
  });
});
