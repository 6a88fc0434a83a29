import { DecryptCommand, EncryptCommand, KMSClient } from "@aws-sdk/client-kms";
import type { SealOwner } from "#lib/core/ports";
import type { SealReading, SealReadingVault } from "./legacy-seals";

/**
 * The encryption context: binds every ciphertext to its owner and field, so a blob copied onto
 * another user's item (or into another field) fails to decrypt, and lets the key policy grant
 * each function only the fields it seals or opens (infra/resources/iam.yml).
 */
export const encryptionContextOf = (owner: SealOwner): Record<string, string> => ({
  team: owner.team,
  user: owner.user,
  field: owner.field,
});
/**
 * The context every value was sealed under before owners were bound. Such values still open
 * (the roles may, while the stage parameter `legacySealedValues` is on) until
 * `statuspilot migrate-seals` has sealed each again under its owner.
 */
export const LEGACY_ENCRYPTION_CONTEXT: Readonly<Record<string, string>> = {
  purpose: "statuspilot-user-token",
};
const PREFIX = "kms:";

export class TokenVaultError extends Error {
  override name = "TokenVaultError";
  constructor(
    /** `refused`: KMS authenticated the value under neither the owner's context nor the old one. */
    readonly code: "not_sealed_by_kms" | "kms_failed" | "refused",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Seals secrets with a KMS key, each to its owner: only ciphertext is ever stored. */
export class KmsTokenVault implements SealReadingVault {
  constructor(
    private readonly client: KMSClient,
    private readonly keyId: string,
  ) {}

  async seal(plain: string, owner: SealOwner): Promise<string> {
    try {
      const out = await this.client.send(
        new EncryptCommand({
          KeyId: this.keyId,
          Plaintext: Buffer.from(plain, "utf8"),
          EncryptionContext: encryptionContextOf(owner),
        }),
      );
      if (!out.CiphertextBlob) throw new Error("KMS returned no ciphertext");
      return PREFIX + Buffer.from(out.CiphertextBlob).toString("base64");
    } catch (error: unknown) {
      throw new TokenVaultError("kms_failed", "could not seal the token with KMS", {
        cause: error,
      });
    }
  }

  async open(sealed: string, owner: SealOwner): Promise<string> {
    const reading = await this.read(sealed, owner);
    if (reading.kind !== "refused") return reading.plain;
    throw reading.reason === "not_this_vault"
      ? new TokenVaultError("not_sealed_by_kms", "token was not sealed by the KMS vault")
      : new TokenVaultError("refused", "KMS refused the value for this owner and field");
  }

  /**
   * Opens under the owner's context; only when KMS answers that the ciphertext does not
   * authenticate under it (InvalidCiphertextException), under the old purpose-only context.
   * Any other failure (throttling, access denied, the network) is thrown, never retried as
   * legacy. A value sealed under one context never opens under the other.
   */
  async read(sealed: string, owner: SealOwner): Promise<SealReading> {
    if (!sealed.startsWith(PREFIX)) return { kind: "refused", reason: "not_this_vault" };
    const blob = Buffer.from(sealed.slice(PREFIX.length), "base64");
    const bound = await this.decrypt(blob, encryptionContextOf(owner));
    if (bound !== undefined) return { kind: "bound", plain: bound };
    const legacy = await this.decrypt(blob, LEGACY_ENCRYPTION_CONTEXT);
    if (legacy !== undefined) return { kind: "legacy", plain: legacy };
    return { kind: "refused", reason: "not_authentic" };
  }

  /** The plain text, or undefined when the ciphertext does not authenticate under `context`. */
  private async decrypt(
    blob: Uint8Array,
    context: Record<string, string>,
  ): Promise<string | undefined> {
    try {
      const out = await this.client.send(
        new DecryptCommand({ KeyId: this.keyId, CiphertextBlob: blob, EncryptionContext: context }),
      );
      if (!out.Plaintext) throw new Error("KMS returned no plaintext");
      return Buffer.from(out.Plaintext).toString("utf8");
    } catch (error: unknown) {
      // KMS's answer for a context the ciphertext was not sealed under (by name: an SDK's
      // modeled exception class may come from another copy of the client in a bundle).
      if (error instanceof Error && error.name === "InvalidCiphertextException") return undefined;
      throw new TokenVaultError("kms_failed", "could not open the token with KMS", {
        cause: error,
      });
    }
  }
}

/** A vault with its own KMS client, for the composition root to load only where tokens are used. */
export function createKmsTokenVault(region: string, keyId: string): KmsTokenVault {
  return new KmsTokenVault(new KMSClient({ region }), keyId);
}
