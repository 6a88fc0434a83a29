import { describe, expect, it } from "vitest";
import { LocalTokenVault, LocalTokenVaultError } from "#lib/app/secrets/local-vault";

const alice = { team: "T1", user: "U001", field: "access_token" } as const;

describe("LocalTokenVault", () => {
  it("opens what it sealed, and the sealed form does not contain the token", async () => {
    // Prepare
    const vault = new LocalTokenVault(Buffer.alloc(32, 1).toString("base64"));
    // Act
    const sealed = await vault.seal("xoxp-very-secret", alice);
    // Assess
    expect(sealed).not.toContain("xoxp-very-secret");
    expect(await vault.open(sealed, alice)).toBe("xoxp-very-secret");
  });

  it("refuses a sealed token that was tampered with or sealed under another key", async () => {
    // Prepare
    const sealed = await new LocalTokenVault(Buffer.alloc(32, 1)).seal("xoxp-a", alice);
    const other = new LocalTokenVault(Buffer.alloc(32, 2));
    const flipped = `${sealed.slice(0, -4)}AAAA`;
    // Act / Assess
    await expect(other.open(sealed, alice)).rejects.toMatchObject({ code: "tampered" });
    await expect(
      new LocalTokenVault(Buffer.alloc(32, 1)).open(flipped, alice),
    ).rejects.toBeInstanceOf(LocalTokenVaultError);
    await expect(other.open("kms:abc", alice)).rejects.toMatchObject({
      code: "not_sealed_locally",
    });
  });

  it("refuses a value opened for another user, team or field, as KMS's encryption context does", async () => {
    // Prepare
    const vault = new LocalTokenVault(Buffer.alloc(32, 1));
    const sealed = await vault.seal("xoxp-a", alice);
    // Act / Assess
    for (const other of [
      { ...alice, user: "U002" },
      { ...alice, team: "T2" },
      { ...alice, field: "refresh_token" as const },
      // No two owners run together: "T1" + "U001" is not "T1U" + "001".
      { ...alice, team: "T1U", user: "001" },
    ]) {
      await expect(vault.open(sealed, other)).rejects.toMatchObject({ code: "tampered" });
    }
    expect(await vault.open(sealed, { ...alice })).toBe("xoxp-a");
  });

  it("rejects a key that is not 32 bytes", () => {
    // Act / Assess
    expect(() => new LocalTokenVault(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});
