import type { Clock } from "#lib/core/clock";
import type { OneTimeMarks } from "#lib/core/ports";
import { OAuthStateError } from "./errors";
import { constantTimeEqual, MacSigner, macOf } from "./mac";

/** How long an install `state` stays valid: the service's codes live 10 minutes too. */
export const STATE_TTL_MS = 10 * 60_000;

const VERSION = "1";
/** `1.<nonce: 22 base64url>.<expiresAt: epoch ms>.<mac: 43 base64url>` */
const STATE_FORM = /^1\.([A-Za-z0-9_-]{22})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

export interface OAuthStateOptions {
  /** The front door's secret (at least 32 characters); shared with session and CSRF, by label. */
  key: string;
  clock: Clock;
  /** Where each state's single use is recorded. */
  marks: OneTimeMarks;
  ttlMs?: number;
  /** Source of the nonce's 16 random bytes (tests may fix it). */
  random?: (size: number) => Uint8Array;
}

/** A state that passed every check and is now spent. */
export interface AcceptedState {
  nonce: string;
  /** Epoch ms. */
  expiresAt: number;
}

/**
 * The `state` of the install flow. It is signed, not stored: `/install` issues one without a
 * write, and the callback checks, in this order, its form, its MAC (constant time), its expiry
 * on the injected clock, and then spends it with a conditional put, so a second use of the
 * same state is refused even by two callbacks racing. A forged state costs no write.
 */
export class OAuthStates extends MacSigner {
  private readonly marks: OneTimeMarks;
  private readonly ttlMs: number;

  constructor(opts: OAuthStateOptions) {
    super(opts, "OAuthStates");
    this.marks = opts.marks;
    this.ttlMs = opts.ttlMs ?? STATE_TTL_MS;
  }

  /**
   * A fresh state for the authorize URL. With `binding` (a random value the route also puts in
   * a short-lived cookie of the browser, see install-binding.ts) the state is good only when the
   * callback brings the same value back: someone else's state, sent to this browser, is refused
   * (login CSRF).
   */
  issue(binding?: string): string {
    const nonce = Buffer.from(this.random(16)).toString("base64url");
    const expiresAt = this.clock.now() + this.ttlMs;
    const body = `${VERSION}.${nonce}.${expiresAt}`;
    return `${body}.${this.macOf(body, binding)}`;
  }

  /**
   * Checks `state` and spends it. Throws an OAuthStateError (`malformed`, `bad_signature`,
   * `expired`, `replayed`); never writes for a state that is not genuine and fresh.
   */
  async consume(state: string | undefined, binding?: string): Promise<AcceptedState> {
    const accepted = this.verify(state, binding);
    const now = this.clock.now();
    const first = await this.marks.consume(
      `oauth-state#${accepted.nonce}`,
      accepted.expiresAt,
      now,
    );
    if (!first) throw new OAuthStateError("replayed", "this state was already used");
    return accepted;
  }

  /** The checks of `consume` without spending the state. */
  verify(state: string | undefined, binding?: string): AcceptedState {
    const match = state === undefined ? null : STATE_FORM.exec(state);
    const [, nonce, expiry, mac] = match ?? [];
    if (nonce === undefined || expiry === undefined || mac === undefined) {
      throw new OAuthStateError("malformed", "not a state this app issued");
    }
    const body = `${VERSION}.${nonce}.${expiry}`;
    if (!constantTimeEqual(this.macOf(body, binding), mac)) {
      throw new OAuthStateError("bad_signature", "the signature does not match");
    }
    const expiresAt = Number(expiry);
    if (this.clock.now() >= expiresAt) {
      throw new OAuthStateError("expired", "older than 10 minutes; start the install again");
    }
    return { nonce, expiresAt };
  }

  /** The MAC covers the binding (none: empty), so a state verifies only with its own binding. */
  private macOf(body: string, binding: string | undefined): string {
    return macOf(this.key, "oauth-state", `${body}|${binding ?? ""}`);
  }
}
