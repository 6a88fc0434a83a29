import { describe, expect, it } from "vitest";
import { LocalTokenVault, LocalTokenVaultError } from "../../../lib/app/local-token-vault";

describe("LocalTokenVault", () => {
  it("opens what it sealed, and the sealed form does not contain the token", async () => {
    // Prepare
    const vault = new LocalTokenVault(Buffer.alloc(32, 1).toString("base64"));
    // Act
    const sealed = await vault.seal("xoxp-very-secret");
    // Assess
    expect(sealed).not.toContain("xoxp-very-secret");
    expect(await vault.open(sealed)).toBe("xoxp-very-secret");
  });

  it("refuses a sealed token that was tampered with or sealed under another key", async () => {
    // Prepare
    const sealed = await new LocalTokenVault(Buffer.alloc(32, 1)).seal("xoxp-a");
    const other = new LocalTokenVault(Buffer.alloc(32, 2));
    const flipped = `${sealed.slice(0, -4)}AAAA`;
    // Act / Assess
    await expect(other.open(sealed)).rejects.toMatchObject({ code: "tampered" });
    await expect(new LocalTokenVault(Buffer.alloc(32, 1)).open(flipped)).rejects.toBeInstanceOf(
      LocalTokenVaultError,
    );
    await expect(other.open("kms:abc")).rejects.toMatchObject({ code: "not_sealed_locally" });
  });

  it("rejects a key that is not 32 bytes", () => {
    // Act / Assess
    expect(() => new LocalTokenVault(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});
