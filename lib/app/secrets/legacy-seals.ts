import type { SealOwner, TokenVault } from "#lib/core/ports";

/**
 * What a sealed value turned out to be when read for one owner. Values sealed before owners
 * were bound carry only a purpose (the KMS context `{purpose: "statuspilot-user-token"}`, the
 * local vault's additional data `statuspilot-user-token`) in the same stored format, so the
 * vaults tell them apart by authentication, never by guessing: a value opens under the owner's
 * context (`bound`), or, only when that fails authentication, under the old purpose (`legacy`);
 * `refused` when neither authenticates (another owner's or field's, another key, damaged) or the
 * value is not this vault's at all.
 */
export type SealReading =
  | { kind: "bound"; plain: string }
  | { kind: "legacy"; plain: string }
  | { kind: "refused"; reason: "not_this_vault" | "not_authentic" };

/** A vault that also says which format a value was sealed in (for the re-sealing migration). */
export interface SealReadingVault extends TokenVault {
  /** Throws only when it could not ask (KMS unreachable, throttled, access denied). */
  read(sealed: string, owner: SealOwner): Promise<SealReading>;
}
