import { createCipheriv, randomBytes } from "node:crypto";

/**
 * A value sealed the way the local vault sealed before owners were bound, restated from that
 * version: "aesgcm:" + base64(iv ‖ tag ‖ body) of AES-256-GCM under the stack's key, with the
 * additional data "statuspilot-user-token" whoever the owner.
 */
export function oldLocalSeal(key: Buffer | string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv(
    "aes-256-gcm",
    typeof key === "string" ? Buffer.from(key, "base64") : key,
    iv,
  );
  cipher.setAAD(Buffer.from("statuspilot-user-token"));
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return `aesgcm:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
}
