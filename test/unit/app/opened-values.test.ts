import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { OpenedValueCache } from "#lib/app/secrets/opened-values";
import { openAddress, sourceUrlOwner } from "#lib/app/secrets/source-address";
import { ManualClock } from "#lib/core/clock";
import type { SealOwner, TokenVault } from "#lib/core/ports";
import { oldLocalSeal } from "../../support/legacy-seals";

const ALICE = { team: "T1", user: "U1" };
const MALLORY = { team: "T1", user: "U9" };
const FEED = "https://calendar.example.com/private-3f9a7c1e2b4d6f80/basic.ics";
const HOUR = 60 * 60_000;
const aliceToken: SealOwner = { ...ALICE, field: "access_token" };

/** The local vault (the KMS stand-in), counting opens: each is a KMS Decrypt on AWS. */
function countingVault(failFirstOpens = 0): { vault: TokenVault; opens: () => number } {
  const inner = new LocalTokenVault(randomBytes(32).toString("base64"));
  let opens = 0;
  return {
    vault: {
      seal: (plain, owner) => inner.seal(plain, owner),
      open: async (sealed: string, owner: SealOwner) => {
        opens++;
        if (opens <= failFirstOpens) throw new Error("KMS throttled");
        return inner.open(sealed, owner);
      },
    },
    opens: () => opens,
  };
}

describe("the container's cache of opened values", () => {
  it("opens each sealed address once a day, each token once in 6 hours", async () => {
    // Prepare
    const { vault, opens } = countingVault();
    const clock = new ManualClock(Date.UTC(2026, 10, 24, 9));
    const cache = new OpenedValueCache(vault, clock);
    const source = { id: "cal1", kind: "ics" as const };
    const urlSealed = await vault.seal(FEED, sourceUrlOwner(ALICE));
    const token = await vault.seal("xoxp-alice", aliceToken);
    const both = () =>
      Promise.all([
        openAddress(cache, ALICE, { ...source, urlSealed }),
        cache.open(token, aliceToken),
      ]);
    // Act: at 09:00, 09:15, 15:15 (the token's 6 hours are over) and 09:15 the next day (both)
    const first = await both();
    clock.advance(15 * 60_000);
    const second = await both();
    const counted = [opens()];
    clock.advance(6 * HOUR);
    await both();
    counted.push(opens());
    clock.advance(18 * HOUR);
    await both();
    counted.push(opens());
    // Assess
    expect([first, second]).toEqual([
      [FEED, "xoxp-alice"],
      [FEED, "xoxp-alice"],
    ]);
    expect(counted).toEqual([2, 3, 5]);
  });

  it("opens a connected calendar's refresh token once a day, and a rotated one anew", async () => {
    // Prepare: the refresh token as the sync worker opens it at each access-token refresh
    const { vault, opens } = countingVault();
    const clock = new ManualClock(Date.UTC(2026, 10, 24, 9));
    const cache = new OpenedValueCache(vault, clock);
    const owner: SealOwner = { ...ALICE, field: "calendar_refresh_token" };
    const sealed = await vault.seal("1//google-refresh", owner);
    // Act: safety-net reads 6 hours apart, all within the day (09:00, 15:00, 21:00, 03:00, 08:00)
    const opened = [await cache.open(sealed, owner)];
    for (const hours of [6, 6, 6, 5]) {
      clock.advance(hours * HOUR);
      opened.push(await cache.open(sealed, owner));
    }
    clock.advance(59 * 60_000);
    const sameDay = opens();
    // The day is over at 09:00: opened again; then the provider rotates it (a new sealed text)
    clock.advance(60_000);
    opened.push(await cache.open(sealed, owner));
    const nextDay = opens();
    const rotated = await vault.seal("1//google-rotated", owner);
    opened.push(await cache.open(rotated, owner));
    // Assess
    expect(opened).toEqual([...Array(6).fill("1//google-refresh"), "1//google-rotated"]);
    expect([sameDay, nextDay, opens()]).toEqual([1, 2, 3]);
  });

  it("never answers another user or field from what it kept: the vault refuses the moved value", async () => {
    // Prepare: Alice's sealed token, opened once for her
    const { vault, opens } = countingVault();
    const cache = new OpenedValueCache(vault, new ManualClock(0));
    const sealed = await vault.seal("xoxp-alice", aliceToken);
    await cache.open(sealed, aliceToken);
    // Act: the same text on Mallory's item, and in Alice's refresh-token field
    const toMallory = cache.open(sealed, { ...MALLORY, field: "access_token" });
    const toAnotherField = cache.open(sealed, { ...ALICE, field: "refresh_token" });
    // Assess: both went to the vault, which refused them
    await expect(toMallory).rejects.toThrow();
    await expect(toAnotherField).rejects.toThrow();
    expect(opens()).toBe(3);
  });

  it("keeps no failure: the next open asks the vault again", async () => {
    // Prepare: a vault whose first open fails
    const { vault, opens } = countingVault(1);
    const cache = new OpenedValueCache(vault, new ManualClock(0));
    const sealed = await vault.seal("xoxp-alice", aliceToken);
    // Act
    const first = cache.open(sealed, aliceToken);
    await expect(first).rejects.toThrow("KMS throttled");
    const second = await cache.open(sealed, aliceToken);
    // Assess
    expect(second).toBe("xoxp-alice");
    expect(opens()).toBe(2);
  });

  it("keeps what it sealed for its owner, and makes one call for concurrent opens", async () => {
    // Prepare
    const { vault, opens } = countingVault();
    const cache = new OpenedValueCache(vault, new ManualClock(0));
    const renewed = await cache.seal("xoxp-renewed", aliceToken);
    const other = await vault.seal("xoxp-other", aliceToken);
    // Act
    const afterSeal = await cache.open(renewed, aliceToken);
    const together = await Promise.all([
      cache.open(other, aliceToken),
      cache.open(other, aliceToken),
    ]);
    // Assess
    expect([afterSeal, ...together]).toEqual(["xoxp-renewed", "xoxp-other", "xoxp-other"]);
    expect(opens()).toBe(1);
  });

  it("opens values stored before it existed: sealed to their owner, or before owners were bound", async () => {
    // Prepare: the stored formats are unchanged; one value of each, sealed by the vault alone
    const key = Buffer.alloc(32, 7);
    const vault = new LocalTokenVault(key);
    const cache = new OpenedValueCache(vault, new ManualClock(0));
    const bound = await vault.seal("xoxp-bound", aliceToken);
    const legacy = oldLocalSeal(key, "xoxp-from-before");
    // Act
    const opened = [await cache.open(bound, aliceToken), await cache.open(legacy, aliceToken)];
    // Assess
    expect(opened).toEqual(["xoxp-bound", "xoxp-from-before"]);
  });

  it("keeps at most its bound of values, dropping the oldest", async () => {
    // Prepare: room for two
    const { vault, opens } = countingVault();
    const cache = new OpenedValueCache(vault, new ManualClock(0), undefined, 2);
    const [a, b, c] = await Promise.all(["a", "b", "c"].map((v) => vault.seal(v, aliceToken)));
    // Act: a, b, c opened; then a (dropped) and c (kept) again
    for (const sealed of [a, b, c, a, c]) await cache.open(sealed as string, aliceToken);
    // Assess
    expect(opens()).toBe(4);
  });
});
