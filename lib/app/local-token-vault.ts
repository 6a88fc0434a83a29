import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { SealOwner, TokenVault } from "../core/ports";

const PREFIX = "aesgcm:";
/**
 * The additional authenticated data: binds the ciphertext to its owner and field, as the KMS
 * vault's encryption context does, so a value opened under another owner fails as tampered.
 * JSON, so no two owners give the same bytes.
 */
const aadOf = (owner: SealOwner): Buffer =>
  Buffer.from(JSON.stringify(["statuspilot", owner.team, owner.user, owner.field]));

export class LocalTokenVaultError extends Error {
  override name = "LocalTokenVaultError";
  constructor(
    message: string,
    readonly code: "bad_key" | "not_sealed_locally" | "tampered",
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** AES-256-GCM with a local 32-byte key (the local stack); AWS uses the KMS vault. */
export class LocalTokenVault implements TokenVault {
  private readonly key: Buffer;

  constructor(key: Buffer | string) {
    this.key = typeof key === "string" ? Buffer.from(key, "base64") : key;
    if (this.key.length !== 32) {
      throw new LocalTokenVaultError("the token key must be 32 bytes (base64)", "bad_key");
    }
  }

  async seal(plain: string, owner: SealOwner): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(aadOf(owner));
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
  }

  async open(sealed: string, owner: SealOwner): Promise<string> {
    if (!sealed.startsWith(PREFIX)) {
      throw new LocalTokenVaultError(
        "token was not sealed by the local vault",
        "not_sealed_locally",
      );
    }
    const raw = Buffer.from(sealed.slice(PREFIX.length), "base64");
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
      decipher.setAAD(aadOf(owner));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
    } catch (error: unknown) {
      throw new LocalTokenVaultError(
        "sealed value failed authentication (another key, owner or field)",
        "tampered",
        {
          cause: error,
        },
      );
    }
  }
}
