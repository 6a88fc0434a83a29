import { BlockList, isIP } from "node:net";

/** One range of addresses a feed may not have on AWS, and why. */
export interface BlockedRange {
  /** The range in CIDR notation, e.g. "10.0.0.0/8". */
  cidr: string;
  why: string;
}

/**
 * Every range a feed's address may not be in on AWS: feeds are fetched from inside the account,
 * so an address that is not a public unicast one would let whoever registers a feed read what
 * only the Lambda can reach (SSRF). The one list: the registration check, the fetch-time check
 * and the tests all read it. Built from IANA's special-purpose address registries (the ranges
 * not globally reachable) plus multicast and the translation prefixes that embed an IPv4
 * address. The documentation ranges (192.0.2.0/24, 2001:db8::/32 …) are left out: they route
 * nowhere, so nothing is gained and examples stay usable.
 *
 * An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is checked as its IPv4 address (node's BlockList
 * maps it), so "::ffff:0:0/96" itself is no row: it would block every IPv4 address.
 */
export const BLOCKED_RANGES: readonly BlockedRange[] = [
  { cidr: "0.0.0.0/8", why: '"this network"; 0.0.0.0 reaches the host itself' },
  { cidr: "10.0.0.0/8", why: "private (RFC 1918)" },
  { cidr: "100.64.0.0/10", why: "shared address space, carrier-grade NAT (RFC 6598)" },
  { cidr: "127.0.0.0/8", why: "loopback" },
  { cidr: "169.254.0.0/16", why: "link-local, with the metadata service at 169.254.169.254" },
  { cidr: "172.16.0.0/12", why: "private (RFC 1918)" },
  { cidr: "192.0.0.0/24", why: "IETF protocol assignments; some clouds' metadata services" },
  { cidr: "192.168.0.0/16", why: "private (RFC 1918)" },
  { cidr: "198.18.0.0/15", why: "benchmarking (RFC 2544), used inside networks" },
  { cidr: "224.0.0.0/4", why: "multicast" },
  { cidr: "240.0.0.0/4", why: "reserved, with the broadcast address 255.255.255.255" },
  { cidr: "::/96", why: "unspecified (::), loopback (::1) and IPv4-compatible addresses" },
  { cidr: "64:ff9b::/96", why: "NAT64 (RFC 6052): it embeds any IPv4 address, private ones too" },
  { cidr: "64:ff9b:1::/48", why: "local-use NAT64 (RFC 8215)" },
  { cidr: "100::/64", why: "discard-only (RFC 6666)" },
  { cidr: "2001::/32", why: "Teredo: it embeds an IPv4 address" },
  { cidr: "2002::/16", why: "6to4 (RFC 3056): it embeds any IPv4 address, private ones too" },
  { cidr: "fc00::/7", why: "unique local, with the IPv6 metadata service at fd00:ec2::254" },
  { cidr: "fe80::/10", why: "link-local" },
  { cidr: "fec0::/10", why: "site-local (deprecated, still routed inside some networks)" },
  { cidr: "ff00::/8", why: "multicast" },
];

const blocked = new BlockList();
for (const { cidr } of BLOCKED_RANGES) {
  const [network = "", prefix = ""] = cidr.split("/");
  blocked.addSubnet(network, Number(prefix), isIP(network) === 4 ? "ipv4" : "ipv6");
}

/**
 * True when `address` (an IP literal, brackets allowed) is in a blocked range; false for a
 * public address and for anything that is not an IP address at all.
 */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 0) return false;
  return blocked.check(bare, family === 4 ? "ipv4" : "ipv6");
}
