import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { CodedError } from "#lib/core/coded-error";
import type { SealOwner } from "#lib/core/ports";
import type { SealReading, SealReadingVault } from "./legacy-seals";

const PREFIX = "aesgcm:";
const IV_BYTES = 12;
const TAG_BYTES = 16;
/**
 * The additional authenticated data: binds the ciphertext to its owner and field, as the KMS
 * vault's encryption context does, so a value opened under another owner fails as tampered.
 * JSON, so no two owners give the same bytes.
 */
const aadOf = (owner: SealOwner): Buffer =>
  Buffer.from(JSON.stringify(["statuspilot", owner.team, owner.user, owner.field]));
/**
 * The additional data of every value sealed before owners were bound (same stored format).
 * Such values still open, and the local stack seals each again under its owner at start.
 */
export const LEGACY_AAD = Buffer.from("statuspilot-user-token");

export class LocalTokenVaultError extends CodedError<
  "bad_key" | "not_sealed_locally" | "tampered"
> {
  override name = "LocalTokenVaultError";
}

/** AES-256-GCM with a local 32-byte key (the local stack); AWS uses the KMS vault. */
export class LocalTokenVault implements SealReadingVault {
  private readonly key: Buffer;

  constructor(key: Buffer | string) {
    this.key = typeof key === "string" ? Buffer.from(key, "base64") : key;
    if (this.key.length !== 32) {
      throw new LocalTokenVaultError("the token key must be 32 bytes (base64)", "bad_key");
    }
  }

  async seal(plain: string, owner: SealOwner): Promise<string> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(aadOf(owner));
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
  }

  async open(sealed: string, owner: SealOwner): Promise<string> {
    const reading = await this.read(sealed, owner);
    if (reading.kind !== "refused") return reading.plain;
    throw reading.reason === "not_this_vault"
      ? new LocalTokenVaultError("token was not sealed by the local vault", "not_sealed_locally")
      : new LocalTokenVaultError(
          "sealed value failed authentication (another key, owner or field)",
          "tampered",
        );
  }

  /**
   * Opens under the owner's additional data; only when that fails authentication, under the
   * old purpose-only one. A value sealed under one never authenticates under the other.
   */
  async read(sealed: string, owner: SealOwner): Promise<SealReading> {
    if (!sealed.startsWith(PREFIX)) return { kind: "refused", reason: "not_this_vault" };
    const raw = Buffer.from(sealed.slice(PREFIX.length), "base64");
    // Too short to hold an IV and a tag: damaged, under any additional data.
    if (raw.length < IV_BYTES + TAG_BYTES) return { kind: "refused", reason: "not_authentic" };
    const bound = this.decrypt(raw, aadOf(owner));
    if (bound !== undefined) return { kind: "bound", plain: bound };
    const legacy = this.decrypt(raw, LEGACY_AAD);
    if (legacy !== undefined) return { kind: "legacy", plain: legacy };
    return { kind: "refused", reason: "not_authentic" };
  }

  /** The plain text, or undefined when the tag does not authenticate under `aad`. */
  private decrypt(raw: Buffer, aad: Buffer): string | undefined {
    const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(aad);
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const body = decipher.update(raw.subarray(IV_BYTES + TAG_BYTES));
    try {
      // With the lengths checked above, only the authentication can fail here.
      return Buffer.concat([body, decipher.final()]).toString("utf8");
    } catch {
      return undefined;
    }
  }
}
