import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { channelToken, channelTokenMatches, newChannelId } from "#lib/http/channel-token";

describe("minted channel ids", () => {
  it("are 128 random bits: 32 hex characters, all distinct, every bit position varying", () => {
    const ids = Array.from({ length: 2000 }, () => newChannelId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Each of the 128 bits is set in roughly half the ids (a counter or a pattern is not).
    for (let bit = 0; bit < 128; bit++) {
      const ones = ids.filter(
        (id) => (Number.parseInt(id[bit >> 2] ?? "0", 16) >> (3 - (bit & 3))) & 1,
      ).length;
      expect(ones).toBeGreaterThan(800);
      expect(ones).toBeLessThan(1200);
    }
  });
});

describe("channel tokens", () => {
  const oracle = (secret: string, id: string) =>
    createHmac("sha256", secret).update(`channel-token:${id}`).digest("base64url");

  it("are the HMAC-SHA256 of the labelled channel id under the signing secret", () => {
    expect(channelToken("s3cret", "chan-1")).toBe(oracle("s3cret", "chan-1"));
    expect(channelToken("s3cret", "chan-1")).not.toBe(channelToken("s3cret", "chan-2"));
    expect(channelToken("s3cret", "chan-1")).not.toBe(channelToken("other", "chan-1"));
  });

  it("match only the exact token", () => {
    const right = oracle("s3cret", "chan-1");
    expect(channelTokenMatches("s3cret", "chan-1", right)).toBe(true);
    for (const wrong of [undefined, "", right.slice(0, -1), `${right} `, oracle("s3cret", "x")]) {
      expect(channelTokenMatches("s3cret", "chan-1", wrong)).toBe(false);
    }
  });
});
