import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { LocalTokenVault } from "#lib/app/local-token-vault";
import { cachedAddressOpener } from "#lib/app/opened-addresses";
import { sourceUrlOwner } from "#lib/app/source-address";
import { ManualClock } from "#lib/core/clock";
import type { SealOwner, TokenVault } from "#lib/core/ports";

const ALICE = { team: "T1", user: "U1" };
const MALLORY = { team: "T1", user: "U9" };
const FEED = "https://calendar.example.com/private-3f9a7c1e2b4d6f80/basic.ics";

/** The local vault, counting opens. */
function countingVault(): { vault: TokenVault; opens: () => number } {
  const inner = new LocalTokenVault(randomBytes(32).toString("base64"));
  let opens = 0;
  return {
    vault: {
      seal: (plain, owner) => inner.seal(plain, owner),
      open: (sealed: string, owner: SealOwner) => {
        opens++;
        return inner.open(sealed, owner);
      },
    },
    opens: () => opens,
  };
}

describe("the sync's opener of addresses the poll carries sealed", () => {
  it("opens each sealed address once while it is kept, and again after 6 hours", async () => {
    // Prepare
    const { vault, opens } = countingVault();
    const clock = new ManualClock(Date.UTC(2026, 10, 24, 9));
    const open = cachedAddressOpener(vault, clock);
    const stored = {
      kind: "ics" as const,
      urlSealed: await vault.seal(FEED, sourceUrlOwner(ALICE)),
    };
    // Act
    const first = await open(stored, { key: ALICE, sourceId: "cal1" });
    clock.advance(15 * 60_000);
    const second = await open(stored, { key: ALICE, sourceId: "cal1" });
    clock.advance(6 * 60 * 60_000);
    await open(stored, { key: ALICE, sourceId: "cal1" });
    // Assess
    expect([first, second]).toEqual([FEED, FEED]);
    expect(opens()).toBe(2);
  });

  it("never answers another user from what it kept: the vault refuses the moved address", async () => {
    // Prepare: Alice's sealed address, opened once for her, then carried on Mallory's source
    const { vault } = countingVault();
    const open = cachedAddressOpener(vault, new ManualClock(0));
    const stored = {
      kind: "ics" as const,
      urlSealed: await vault.seal(FEED, sourceUrlOwner(ALICE)),
    };
    await open(stored, { key: ALICE, sourceId: "cal1" });
    // Act
    const moved = open(stored, { key: MALLORY, sourceId: "cal1" });
    // Assess
    await expect(moved).rejects.toThrow();
  });
});
