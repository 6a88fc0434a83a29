// lib/app/secrets: sealing and opening secrets (tokens, addresses, signing secret), refreshing the
// service token, and the seal migration.
import type { Clock } from "#lib/core/clock";
import type { SealedField, SealOwner, TokenVault } from "#lib/core/ports";

const HOUR = 60 * 60_000;
/**
 * How long an opened value is kept, by field. A transition worker uses a user's token a dozen
 * times a working day: with 6 hours, about 2 KMS Decrypts a day instead of one per call to the
 * service. A calendar address is checked 96 times a day by the sync worker and changes only when
 * its owner replaces it (a new sealed text, so a new entry): a day's age makes that 1 Decrypt a
 * day instead of 4. A connected calendar's refresh token is the same case: it is long-lived and
 * changes only when its owner connects again or the provider rotates it (either way a new sealed
 * text, so a new entry), and the sync worker opens it at each access-token refresh (each
 * safety-net read, 6 hours apart, finds the 1-hour access token expired): a day's age lets a warm
 * instance open it once a day rather than at every read. The age is also how long disabling the
 * key or a role's grant can take to reach a warm container (infra/DEPLOY.md says how to recycle
 * them at once).
 */
export const OPENED_VALUE_MAX_AGE_MS: Readonly<Record<SealedField, number>> = {
  access_token: 6 * HOUR,
  refresh_token: 6 * HOUR,
  source_url: 24 * HOUR,
  source_secret: 6 * HOUR,
  channel_secret: 6 * HOUR,
  calendar_refresh_token: 24 * HOUR,
  oauth_client_secret: 6 * HOUR,
  // The bot token of a team: opened for each Home publish and message, replaced by a reinstall.
  bot_token: 6 * HOUR,
};
/** Most values kept at once; the oldest goes first (a few hundred bytes each). */
export const OPENED_VALUE_MAX_ENTRIES = 5_000;

interface Kept {
  plain: Promise<string>;
  until: number;
}

/**
 * A vault that keeps the values it opened in the container's memory, for a bounded age and
 * count, so that opening the same secret again costs no KMS call (the pattern of the AWS
 * Encryption SDK's caching, applied to the opened values rather than to data keys: the stored
 * format, the key's grants and the per-field encryption context stay as they are).
 *
 * A value stays sealed to its owner: the cache is keyed by the owner (team, user, field) and
 * the exact sealed text, so the same text read for another user or field is a miss and goes to
 * the vault, which refuses it. A failure is never kept. A value sealed here is kept for its
 * owner at once: the next open of a freshly renewed token costs nothing.
 */
export class OpenedValueCache implements TokenVault {
  private readonly kept = new Map<string, Kept>();

  constructor(
    private readonly vault: TokenVault,
    private readonly clock: Clock,
    private readonly maxAgeMs: Readonly<Record<SealedField, number>> = OPENED_VALUE_MAX_AGE_MS,
    private readonly maxEntries = OPENED_VALUE_MAX_ENTRIES,
  ) {}

  async seal(plain: string, owner: SealOwner): Promise<string> {
    const sealed = await this.vault.seal(plain, owner);
    this.keep(keyOf(sealed, owner), owner.field, Promise.resolve(plain));
    return sealed;
  }

  open(sealed: string, owner: SealOwner): Promise<string> {
    const key = keyOf(sealed, owner);
    const hit = this.kept.get(key);
    if (hit !== undefined && hit.until > this.clock.now()) return hit.plain;
    // Kept while in flight too, so concurrent opens of one value make one call.
    const plain = this.vault.open(sealed, owner);
    const entry = this.keep(key, owner.field, plain);
    plain.catch(() => {
      if (this.kept.get(key) === entry) this.kept.delete(key);
    });
    return plain;
  }

  private keep(key: string, field: SealedField, plain: Promise<string>): Kept {
    const entry = { plain, until: this.clock.now() + this.maxAgeMs[field] };
    this.kept.delete(key);
    this.kept.set(key, entry);
    if (this.kept.size > this.maxEntries) {
      this.kept.delete(this.kept.keys().next().value as string);
    }
    return entry;
  }
}

/** JSON, so no two (owner, sealed text) pairs give the same key. */
const keyOf = (sealed: string, owner: SealOwner): string =>
  JSON.stringify([owner.team, owner.user, owner.field, sealed]);
