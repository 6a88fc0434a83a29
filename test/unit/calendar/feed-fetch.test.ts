import { describe, expect, it } from "vitest";
import { type FeedAddressGuard, fetchFeed, MAX_FEED_REDIRECTS } from "#lib/calendar/feed-fetch";
import type { PinnedFetch } from "#lib/calendar/pinned-connection";
import { scriptedDns } from "../../support/scripted-dns";

const ICS = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n";

/** The network behind the pinned connection: where each request went, and what each URL serves. */
function pinnedNetwork(serve: Record<string, () => Response>) {
  const connections: { url: string; addresses: readonly string[] }[] = [];
  const fetchPinned: PinnedFetch = async (url, addresses) => {
    connections.push({ url: url.href, addresses });
    return serve[url.href]?.() ?? new Response(ICS);
  };
  return { fetchPinned, connections };
}

const redirect = (location: string) => () =>
  new Response(null, { status: 302, headers: { location } });

/** fetch as the system runs it (its own lookup): under a guard it must never be called. */
const systemFetch: typeof fetch = async () => {
  throw new Error("the system's fetch resolves the name again: it must not be used under a guard");
};

const init = () => ({ headers: {}, signal: AbortSignal.timeout(5_000) });

describe("fetching a feed under the address guard (as on AWS)", () => {
  it("resolves each hop once and connects to exactly the addresses it checked", async () => {
    // Prepare: b.example rebinds to loopback on its second lookup
    const dns = scriptedDns({
      "a.example": [["93.184.216.34"]],
      "b.example": [["198.51.100.7", "2606:4700::6810:84e5"], ["127.0.0.1"]],
    });
    const net = pinnedNetwork({ "https://a.example/cal.ics": redirect("https://b.example/x.ics") });
    const guard: FeedAddressGuard = { policy: { allowPrivate: false }, ...dns, ...net };
    // Act
    const got = await fetchFeed(systemFetch, "https://a.example/cal.ics", init(), guard);
    // Assess
    expect(got.kind).toBe("response");
    expect(net.connections).toEqual([
      { url: "https://a.example/cal.ics", addresses: ["93.184.216.34"] },
      { url: "https://b.example/x.ics", addresses: ["198.51.100.7", "2606:4700::6810:84e5"] },
    ]);
    expect(Object.fromEntries(dns.lookups)).toEqual({ "a.example": 1, "b.example": 1 });
  });

  it.each([
    ["a name that resolves inside", [["169.254.169.254"]]],
    ["a name with one inside address among public ones", [["93.184.216.34", "100.64.0.9"]]],
    ["a name that resolves to a NAT64 address of the metadata service", [["64:ff9b::a9fe:a9fe"]]],
  ])("refuses a redirect to %s, connecting nowhere for it", async (_, answers) => {
    // Prepare
    const dns = scriptedDns({ "a.example": [["93.184.216.34"]], "inside.example": answers });
    const net = pinnedNetwork({ "https://a.example/cal.ics": redirect("http://inside.example/") });
    const guard: FeedAddressGuard = { policy: { allowPrivate: false }, ...dns, ...net };
    // Act
    const got = await fetchFeed(systemFetch, "https://a.example/cal.ics", init(), guard);
    // Assess
    expect(got).toMatchObject({ kind: "refused", reason: "private_address" });
    expect(net.connections.map((c) => c.url)).toEqual(["https://a.example/cal.ics"]);
  });

  it("takes an IP-literal host as its own address, without a lookup", async () => {
    // Prepare
    const dns = scriptedDns({});
    const net = pinnedNetwork({});
    const guard: FeedAddressGuard = { policy: { allowPrivate: false }, ...dns, ...net };
    // Act
    const got = await fetchFeed(systemFetch, "http://[2606:4700::1]:8080/a.ics", init(), guard);
    // Assess
    expect(got.kind).toBe("response");
    expect(net.connections).toEqual([
      { url: "http://[2606:4700::1]:8080/a.ics", addresses: ["2606:4700::1"] },
    ]);
    expect(dns.lookups.size).toBe(0);
  });

  it(`stops after ${MAX_FEED_REDIRECTS} redirects, each hop checked`, async () => {
    // Prepare: a loop between two public names
    const dns = scriptedDns({ "a.example": [["93.184.216.34"]], "b.example": [["93.184.216.35"]] });
    const net = pinnedNetwork({
      "https://a.example/": redirect("https://b.example/"),
      "https://b.example/": redirect("https://a.example/"),
    });
    const guard: FeedAddressGuard = { policy: { allowPrivate: false }, ...dns, ...net };
    // Act
    const got = await fetchFeed(systemFetch, "https://a.example/", init(), guard);
    // Assess
    expect(got).toMatchObject({ kind: "refused", reason: "too_many_redirects" });
    expect(net.connections).toHaveLength(MAX_FEED_REDIRECTS + 1);
    expect((dns.lookups.get("a.example") ?? 0) + (dns.lookups.get("b.example") ?? 0)).toBe(
      MAX_FEED_REDIRECTS + 1,
    );
  });
});

describe("fetching a feed in the local stack (private addresses allowed)", () => {
  it("uses the given fetch, with manual redirects, and resolves nothing itself", async () => {
    // Prepare
    const asked: { url: string; redirect: RequestRedirect | undefined }[] = [];
    const localFetch: typeof fetch = async (input, requestInit) => {
      asked.push({ url: String(input), redirect: requestInit?.redirect });
      return new Response(ICS);
    };
    const dns = scriptedDns({});
    const net = pinnedNetwork({});
    // Act
    const got = await fetchFeed(localFetch, "http://127.0.0.1:9/a.ics", init(), {
      policy: { allowPrivate: true },
      ...dns,
      ...net,
    });
    // Assess
    expect(got.kind).toBe("response");
    expect(asked).toEqual([{ url: "http://127.0.0.1:9/a.ics", redirect: "manual" }]);
    expect(net.connections).toEqual([]);
    expect(dns.lookups.size).toBe(0);
  });
});
