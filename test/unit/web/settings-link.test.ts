import { describe, expect, it } from "vitest";
import { ManualClock } from "#lib/core/clock";
import type { GrantTake } from "#lib/core/ports";
import { MemoryOneTimeMarks } from "#lib/store/memory-one-time-marks";
import { SettingsLinkError } from "#lib/web/errors";
import { SETTINGS_LINK_TTL_MS, SettingsLinks } from "#lib/web/settings-link";

// The rule (issue 26): a Home tab settings link signs in the person and session epoch it was
// made for, once, for 5 minutes from its issue. Anything else is refused with a code saying why
// (malformed, unknown, expired, replayed), and a malformed link costs no store call. The
// in-memory marks pass the same contract as the DynamoDB adapter (one-time-marks.contract.ts).

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const ALICE = { team: "T0001", user: "U0001", epoch: T0 - 86_400_000 };

/** In-memory marks that count the store calls a link costs. */
class CountingMarks extends MemoryOneTimeMarks {
  takeCalls = 0;
  grantCalls = 0;
  override async take(id: string, now: number): Promise<GrantTake> {
    this.takeCalls += 1;
    return super.take(id, now);
  }
  override async grant(id: string, payload: string, expiresAt: number): Promise<void> {
    this.grantCalls += 1;
    return super.grant(id, payload, expiresAt);
  }
}

function setup() {
  const clock = new ManualClock(T0);
  const marks = new CountingMarks();
  return { clock, marks, links: new SettingsLinks({ clock, marks }) };
}

async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    return await p;
  } catch (error: unknown) {
    if (!(error instanceof SettingsLinkError)) throw error;
    return { code: error.code, status: error.httpStatus };
  }
}

describe("the Home tab's settings link", () => {
  it("is a random 256-bit id that signs its person in once", async () => {
    // Prepare
    const { links } = setup();
    const token = await links.issue(ALICE);
    const other = await links.issue(ALICE);
    // Act
    const first = await outcome(links.consume(token));
    const again = await outcome(links.consume(token));
    // Assess
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    expect(other).not.toBe(token);
    expect(token).not.toContain(ALICE.user);
    expect(first).toEqual(ALICE);
    expect(again).toEqual({ code: "replayed", status: 400 });
  });

  it("works until the millisecond before its 5 minutes end, and not from then on", async () => {
    // Prepare
    const { clock, links } = setup();
    const inTime = await links.issue(ALICE);
    const late = await links.issue(ALICE);
    // Act
    clock.set(T0 + SETTINGS_LINK_TTL_MS - 1);
    const lastMs = await outcome(links.consume(inTime));
    clock.set(T0 + SETTINGS_LINK_TTL_MS);
    const atExpiry = await outcome(links.consume(late));
    // Assess
    expect(SETTINGS_LINK_TTL_MS).toBe(5 * 60_000);
    expect(lastMs).toEqual(ALICE);
    expect(atExpiry).toEqual({ code: "expired", status: 400 });
  });

  it("refuses a well-formed link it never issued as unknown", async () => {
    // Prepare
    const { links } = setup();
    await links.issue(ALICE);
    // Act
    const result = await outcome(links.consume("A".repeat(43)));
    // Assess
    expect(result).toEqual({ code: "unknown", status: 400 });
  });

  it("refuses a malformed link without a store call", async () => {
    // Prepare
    const { links, marks } = setup();
    const token = await links.issue(ALICE);
    const inputs = [
      undefined,
      "",
      token.slice(1),
      `${token}A`,
      `${token.slice(0, 42)}=`,
      `${token.slice(0, 42)}+`,
      `1.${token}.${token}`,
      "x".repeat(100_000),
    ];
    // Act
    const results = [];
    for (const input of inputs) results.push(await outcome(links.consume(input)));
    // Assess
    expect(results).toEqual(inputs.map(() => ({ code: "malformed", status: 400 })));
    expect(marks.takeCalls).toBe(0);
    expect(await outcome(links.consume(token))).toEqual(ALICE);
  });

  it("signs in exactly one of many concurrent openings of one link", async () => {
    // Prepare
    const { links } = setup();
    const token = await links.issue(ALICE);
    // Act
    const results = await Promise.all(
      Array.from({ length: 10 }, () => outcome(links.consume(token))),
    );
    // Assess
    expect(results.filter((r) => !("code" in (r as object)))).toEqual([ALICE]);
    expect(results.filter((r) => "code" in (r as object))).toHaveLength(9);
  });

  it("issues no link, and stores nothing, for a person it could not name back", async () => {
    // Prepare
    const { links, marks } = setup();
    const bad = [
      { ...ALICE, team: "" },
      { ...ALICE, user: "U 1" },
      { ...ALICE, epoch: -1 },
      { ...ALICE, epoch: 1.5 },
    ];
    // Act
    const results = await Promise.allSettled(bad.map((who) => links.issue(who)));
    // Assess
    expect(results.map((r) => r.status)).toEqual(bad.map(() => "rejected"));
    expect(marks.grantCalls).toBe(0);
  });
});
