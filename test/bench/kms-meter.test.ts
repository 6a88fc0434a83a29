import { describe, expect, it } from "vitest";
import { kmsCounts, meteredVault, resetKmsCounts } from "#bench/support/kms-meter";
import { timed } from "#bench/support/lambda-meter";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { ManualClock } from "#lib/core/clock";
import type { SealOwner, TokenVault } from "#lib/core/ports";

const MIN = 60_000;
const alice: SealOwner = { team: "T1", user: "U1", field: "access_token" };

/** A function of the bench whose every invocation opens `sealed` once. */
async function opener(fn: string, vault: TokenVault, clock: ManualClock, sealed: string) {
  const { handler } = await timed(
    fn,
    async () => ({ handler: () => vault.open(sealed, alice) }),
    clock,
  )();
  return () => handler() as Promise<string>;
}

describe("the cost bench's KMS meter: one cache of opened values per function instance", () => {
  it("counts a Decrypt at an instance's first open, none while warm, one after 15 idle minutes", async () => {
    // Prepare
    const clock = new ManualClock(Date.UTC(2026, 2, 2, 9));
    const stand = new LocalTokenVault(Buffer.alloc(32, 3));
    const vault = meteredVault(stand, clock);
    const sealed = await stand.seal("xoxp-alice", alice);
    const worker = await opener("kmsMeterWorker", vault, clock, sealed);
    const other = await opener("kmsMeterOther", vault, clock, sealed);
    resetKmsCounts();
    // Act: opens at 09:00, 09:10, 09:25 (warm: 15 min idle is not more), 09:41 (cold: 16 min)
    const opened = [await worker()];
    for (const idle of [10, 15, 16]) {
      clock.advance(idle * MIN);
      opened.push(await worker());
    }
    await other();
    // Assess: two instances of the worker, one of the other function
    expect(opened).toEqual(Array(4).fill("xoxp-alice"));
    expect(kmsCounts()).toEqual({
      encrypt: 0,
      decrypt: 3,
      asked: { encrypt: 0, decrypt: 5 },
      byFunction: {
        kmsMeterWorker: { encrypt: 0, decrypt: 2, asked: { encrypt: 0, decrypt: 4 } },
        kmsMeterOther: { encrypt: 0, decrypt: 1, asked: { encrypt: 0, decrypt: 1 } },
      },
      // Had each function's instance stayed warm: one Decrypt each (the token is kept 6 hours)
      warmByFunction: {
        kmsMeterWorker: { encrypt: 0, decrypt: 1 },
        kmsMeterOther: { encrypt: 0, decrypt: 1 },
      },
    });
  });

  it("counts what an always-warm instance would: a Decrypt per value per its kept age, a seal each", async () => {
    // Prepare
    const clock = new ManualClock(Date.UTC(2026, 2, 2, 9));
    const stand = new LocalTokenVault(Buffer.alloc(32, 4));
    const vault = meteredVault(stand, clock);
    const sealed = await stand.seal("xoxp-alice", alice);
    const worker = await opener("kmsMeterWarm", vault, clock, sealed);
    resetKmsCounts();
    // Act: an open every 5 hours for a day (each on a cold instance in the model), then a seal
    const opened = [await worker()];
    for (let i = 0; i < 4; i++) {
      clock.advance(5 * 60 * MIN);
      opened.push(await worker());
    }
    const { handler } = await timed(
      "kmsMeterWarm",
      async () => ({ handler: () => vault.seal("xoxp-renewed", alice) }),
      clock,
    )();
    const resealed = (await handler()) as string;
    // Assess: 5 cold instances, 5 Decrypts; one warm instance opens at 09:00, keeps it at 14:00,
    // opens at 19:00 (its 6 hours are over), keeps it at 00:00, opens at 05:00; each seal counts
    expect(opened).toEqual(Array(5).fill("xoxp-alice"));
    expect(await stand.open(resealed, alice)).toBe("xoxp-renewed");
    const counts = kmsCounts();
    expect(counts.byFunction.kmsMeterWarm).toEqual({
      encrypt: 1,
      decrypt: 5,
      asked: { encrypt: 1, decrypt: 5 },
    });
    expect(counts.warmByFunction.kmsMeterWarm).toEqual({ encrypt: 1, decrypt: 3 });
  });
});
