import { DecryptCommand, EncryptCommand, KMSClient } from "@aws-sdk/client-kms";
import type { SealOwner, TokenVault } from "../core/ports";

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
const PREFIX = "kms:";

export class TokenVaultError extends Error {
  override name = "TokenVaultError";
  constructor(
    readonly code: "not_sealed_by_kms" | "kms_failed",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Seals secrets with a KMS key, each to its owner: only ciphertext is ever stored. */
export class KmsTokenVault implements TokenVault {
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
    if (!sealed.startsWith(PREFIX)) {
      throw new TokenVaultError("not_sealed_by_kms", "token was not sealed by the KMS vault");
    }
    try {
      const out = await this.client.send(
        new DecryptCommand({
          KeyId: this.keyId,
          CiphertextBlob: Buffer.from(sealed.slice(PREFIX.length), "base64"),
          EncryptionContext: encryptionContextOf(owner),
        }),
      );
      if (!out.Plaintext) throw new Error("KMS returned no plaintext");
      return Buffer.from(out.Plaintext).toString("utf8");
    } catch (error: unknown) {
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
