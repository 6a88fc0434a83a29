import { describe, expect, it } from "vitest";
import { claimWrite, initialStatusState } from "#lib/core/reconcile/state";
import { applyObservation, nothingNewIn } from "#lib/core/reconcile/user-change";
import { recordWrite } from "#lib/core/reconcile/write-outcome";
import type { StatusState } from "#lib/core/records";
import type { StatusValue } from "#lib/core/types";

/*
 * A `user_change` tells nothing new when it is a redelivery, the echo of a write of ours already
 * recorded or claimed, or the service clearing at its expiration the status of ours showing.
 * Anything a user did, or that may tie with one, tells something.
 */

const NOW = Date.UTC(2025, 2, 3, 9, 0, 0);
const S = (ms: number) => Math.floor(ms / 1000);
const meeting: StatusValue = {
  text: "In a meeting",
  emoji: ":calendar:",
  expiration: S(NOW) + 1800,
};
const EMPTY: StatusValue = { text: "", emoji: "", expiration: 0 };
const dog: StatusValue = { text: "Walking the dog", emoji: ":dog:", expiration: 0 };
const change = (id: string, atMs: number, status: StatusValue) => ({
  eventId: id,
  eventTime: S(atMs),
  status,
});
const written = (): StatusState => recordWrite(initialStatusState(), meeting, NOW);

describe("nothingNewIn", () => {
  it("calls an event already recorded a duplicate", () => {
    const seen = applyObservation(written(), change("e1", NOW, meeting)).state;
    expect(nothingNewIn(seen, change("e1", NOW, meeting))).toBe("duplicate");
  });

  it("calls the echo of our recorded write, in its own second, an echo", () => {
    expect(nothingNewIn(written(), change("e1", NOW, meeting))).toBe("echo");
  });

  it("calls the echo of the write we claimed and are sending an echo", () => {
    const claimed = claimWrite(initialStatusState(), meeting, NOW);
    expect(nothingNewIn(claimed, change("e1", NOW + 200, meeting))).toBe("echo");
  });

  it("calls the service's clear at our status's expiration an echo (an expiry we planned)", () => {
    const expiry = change("e1", meeting.expiration * 1000, EMPTY);
    expect(nothingNewIn(written(), expiry)).toBe("echo");
  });

  it("keeps a clear before our status's expiration: the user cleared it", () => {
    expect(nothingNewIn(written(), change("e1", NOW + 60_000, EMPTY))).toBeUndefined();
  });

  it("keeps a status of the user's own", () => {
    expect(nothingNewIn(written(), change("e1", NOW + 60_000, dog))).toBeUndefined();
  });

  it("keeps the echo of a claim when a user's change is the newest observation", () => {
    // The user's change and our claim: the echo's second settles which came last
    const userFirst = applyObservation(written(), change("e0", NOW + 60_000, dog)).state;
    const claimed = claimWrite(userFirst, meeting, NOW + 60_000);
    expect(nothingNewIn(claimed, change("e1", NOW + 60_000, meeting))).toBeUndefined();
  });

  it("keeps an echo seconds after our write: it moves when the status was last seen", () => {
    expect(nothingNewIn(written(), change("e1", NOW + 5_000, meeting))).toBeUndefined();
  });
});
