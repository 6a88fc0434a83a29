import { describe, expect, it } from "vitest";
import { BLOCKED_RANGES, isBlockedAddress } from "#lib/calendar/address-ranges";

/**
 * Each blocked range with addresses written out by hand (the oracle: not computed from the
 * module's list): its first and last address and one famous one inside, and its neighbours just
 * outside, which must stay fetchable (none where another blocked range is the neighbour).
 */
const CASES: Record<string, { inside: string[]; outside: string[] }> = {
  "0.0.0.0/8": { inside: ["0.0.0.0", "0.255.255.255"], outside: ["1.0.0.0"] },
  "10.0.0.0/8": { inside: ["10.0.0.0", "10.1.2.3", "10.255.255.255"], outside: ["11.0.0.0"] },
  "100.64.0.0/10": {
    inside: ["100.64.0.0", "100.64.0.1", "100.127.255.255"],
    outside: ["100.63.255.255", "100.128.0.0"],
  },
  "127.0.0.0/8": {
    inside: ["127.0.0.0", "127.0.0.1", "127.255.255.255"],
    outside: ["126.255.255.255", "128.0.0.0"],
  },
  "169.254.0.0/16": {
    inside: ["169.254.0.0", "169.254.169.254", "169.254.255.255"],
    outside: ["169.253.255.255", "169.255.0.0"],
  },
  "172.16.0.0/12": {
    inside: ["172.16.0.0", "172.31.255.255"],
    outside: ["172.15.255.255", "172.32.0.0"],
  },
  "192.0.0.0/24": {
    inside: ["192.0.0.0", "192.0.0.192", "192.0.0.255"],
    outside: ["191.255.255.255", "192.0.1.0"],
  },
  "192.168.0.0/16": {
    inside: ["192.168.0.0", "192.168.1.20", "192.168.255.255"],
    outside: ["192.167.255.255", "192.169.0.0"],
  },
  "198.18.0.0/15": {
    inside: ["198.18.0.0", "198.18.0.1", "198.19.255.255"],
    outside: ["198.17.255.255", "198.20.0.0"],
  },
  "224.0.0.0/4": {
    inside: ["224.0.0.0", "224.0.0.251", "239.255.255.255"],
    outside: ["223.255.255.255"],
  },
  // Multicast below, the end of the address space above.
  "240.0.0.0/4": { inside: ["240.0.0.0", "255.255.255.255"], outside: [] },
  "::/96": { inside: ["::", "::1", "::7f00:1", "::ffff"], outside: ["::1:0:0:0"] },
  "64:ff9b::/96": {
    inside: ["64:ff9b::", "64:ff9b::a9fe:a9fe", "64:ff9b::ffff:ffff"],
    outside: ["64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", "64:ff9b::1:0:0"],
  },
  "64:ff9b:1::/48": {
    inside: ["64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"],
    outside: ["64:ff9b:2::"],
  },
  "100::/64": { inside: ["100::", "100::ffff:ffff:ffff:ffff"], outside: ["100:0:0:1::"] },
  "2001::/32": { inside: ["2001::", "2001:0:ffff::1"], outside: ["2001:1::", "2001:db8::1"] },
  "2002::/16": {
    inside: ["2002::", "2002:a9fe:a9fe::1", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    outside: ["2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2003::"],
  },
  "fc00::/7": {
    inside: ["fc00::", "fd00:ec2::254", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    outside: ["fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fe00::"],
  },
  "fe80::/10": {
    inside: ["fe80::", "fe80::1", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    outside: ["fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  },
  "fec0::/10": {
    inside: ["fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    outside: [], // fe80::/10 below, ff00::/8 above
  },
  "ff00::/8": {
    inside: ["ff00::", "ff02::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    outside: [], // fec0::/10 below, the end of the address space above
  },
};

describe("the blocked address ranges", () => {
  it("has one case here for every range in the list, and no case for a range not in it", () => {
    expect(BLOCKED_RANGES.map((range) => range.cidr).sort()).toEqual(Object.keys(CASES).sort());
  });

  it.each(Object.entries(CASES))("blocks %s from end to end, and not its neighbours", (_, c) => {
    for (const address of c.inside) expect(isBlockedAddress(address), address).toBe(true);
    for (const address of c.outside) expect(isBlockedAddress(address), address).toBe(false);
  });

  it.each([
    ["::ffff:127.0.0.1", true],
    ["::ffff:7f00:1", true],
    ["::ffff:169.254.169.254", true],
    ["::ffff:100.64.0.1", true],
    ["::ffff:10.0.0.5", true],
    ["::ffff:93.184.216.34", false],
  ])("checks the IPv4-mapped address %s as its IPv4 address (blocked: %s)", (address, want) => {
    expect(isBlockedAddress(address)).toBe(want);
  });

  it.each([
    "8.8.8.8",
    "93.184.216.34",
    "1.1.1.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "[2606:4700:4700::1111]",
  ])("lets the public address %s through", (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it("blocks bracketed IPv6 literals as URLs spell them, and answers false for a non-address", () => {
    expect(isBlockedAddress("[::1]")).toBe(true);
    expect(isBlockedAddress("[fd00:ec2::254]")).toBe(true);
    expect(isBlockedAddress("calendar.example")).toBe(false);
    expect(isBlockedAddress("")).toBe(false);
  });
});
