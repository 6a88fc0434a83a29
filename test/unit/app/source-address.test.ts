import { describe, expect, it } from "vitest";
import { addressDigest, hasAddress, redactedAddress } from "#lib/app/secrets/source-address";

const alice = { team: "T1", user: "U001" };

describe("a calendar address's redacted form", () => {
  it("shows scheme, host and the last 4 characters of the longest path segment or query", () => {
    expect(
      redactedAddress(
        "https://calendar.google.com/calendar/ical/a%40b.c/private-0123456789abcdef/basic.ics",
      ),
    ).toBe("https://calendar.google.com/…cdef");
    expect(redactedAddress("http://127.0.0.1:8080/feed?token=ZZZZYYYYXXXXWWWWvvvv")).toBe(
      "http://127.0.0.1:8080/…vvvv",
    );
  });

  it("gives no hint when no part is long enough to spare 4 characters", () => {
    expect(redactedAddress("https://cal.example/short/team.ics")).toBe("https://cal.example/…");
    expect(redactedAddress("not an address")).toBe("(invalid address)");
  });
});

describe("a calendar address's fingerprint", () => {
  it("matches the same address of the same source only", () => {
    const url = "https://cal.example/secret-0123456789.ics";
    const digest = addressDigest(alice, "work", url);
    const source = { id: "work", kind: "ics" as const, urlDigest: digest };
    expect(hasAddress(alice, source, url)).toBe(true);
    expect(hasAddress(alice, source, `${url}x`)).toBe(false);
    // Bound to the user and the source: equal addresses elsewhere give other digests.
    expect(addressDigest({ ...alice, user: "U002" }, "work", url)).not.toBe(digest);
    expect(addressDigest(alice, "home", url)).not.toBe(digest);
    expect(digest).not.toContain("secret");
  });

  it("compares an address stored in clear (before sealing) directly", () => {
    const source = { id: "old", kind: "ics" as const, url: "https://cal.example/a.ics" };
    expect(hasAddress(alice, source, "https://cal.example/a.ics")).toBe(true);
    expect(hasAddress(alice, source, "https://cal.example/b.ics")).toBe(false);
  });
});
