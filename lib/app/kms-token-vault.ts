import { DecryptCommand, EncryptCommand, KMSClient } from "@aws-sdk/client-kms";

/** Binds every ciphertext to its purpose, so a token blob cannot be decrypted as anything else. */
const ENCRYPTION_CONTEXT = { purpose: "statuspilot-user-token" };
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

/** Seals user tokens with a KMS key: only ciphertext is ever stored. */
export class KmsTokenVault {
  constructor(
    private readonly client: KMSClient,
    private readonly keyId: string,
  ) {}

  async seal(plain: string): Promise<string> {
    try {
      const out = await this.client.send(
        new EncryptCommand({
          KeyId: this.keyId,
          Plaintext: Buffer.from(plain, "utf8"),
          EncryptionContext: ENCRYPTION_CONTEXT,
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

  async open(sealed: string): Promise<string> {
    if (!sealed.startsWith(PREFIX)) {
      throw new TokenVaultError("not_sealed_by_kms", "token was not sealed by the KMS vault");
    }
    try {
      const out = await this.client.send(
        new DecryptCommand({
          KeyId: this.keyId,
          CiphertextBlob: Buffer.from(sealed.slice(PREFIX.length), "base64"),
          EncryptionContext: ENCRYPTION_CONTEXT,
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
