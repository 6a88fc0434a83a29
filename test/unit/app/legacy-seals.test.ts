import { EncryptCommand, InvalidCiphertextException, KMSClient } from "@aws-sdk/client-kms";
import { describe, expect, it } from "vitest";
import { KmsTokenVault } from "#lib/app/secrets/kms-vault";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { oldLocalSeal } from "../../support/legacy-seals";

// Values sealed before owners were bound (issue 11 §2 follow-up): the same stored formats, under
// the old purpose-only context. Each is made here the old way, restated from the old vaults:
// the KMS vault sent Encrypt with EncryptionContext {purpose: "statuspilot-user-token"} and
// stored "kms:" + base64(ciphertext); the local vault stored "aesgcm:" + base64(iv ‖ tag ‖
// body) of AES-256-GCM with the additional data "statuspilot-user-token".

const alice = { team: "T1", user: "U001", field: "access_token" } as const;
const bob = { ...alice, user: "U002" };
const OLD_PURPOSE = "statuspilot-user-token";

describe("LocalTokenVault and values sealed before owners were bound", () => {
  const key = Buffer.alloc(32, 7);
  const vault = new LocalTokenVault(key);

  it("opens an old-format value, and reads it as legacy, never as bound", async () => {
    const old = oldLocalSeal(key, "xoxp-from-before");
    expect(await vault.open(old, alice)).toBe("xoxp-from-before");
    expect(await vault.read(old, alice)).toEqual({ kind: "legacy", plain: "xoxp-from-before" });
  });

  it("reads a value sealed to its owner as bound, and never opens it for another owner", async () => {
    const sealed = await vault.seal("xoxp-a", alice);
    expect(await vault.read(sealed, alice)).toEqual({ kind: "bound", plain: "xoxp-a" });
    expect(await vault.read(sealed, bob)).toEqual({ kind: "refused", reason: "not_authentic" });
    await expect(vault.open(sealed, bob)).rejects.toMatchObject({ code: "tampered" });
  });

  it("refuses an old-format value under another key, or damaged", async () => {
    const old = oldLocalSeal(Buffer.alloc(32, 8), "xoxp-other-key");
    await expect(vault.open(old, alice)).rejects.toMatchObject({ code: "tampered" });
    const damaged = `${oldLocalSeal(key, "xoxp-x").slice(0, -4)}AAAA`;
    await expect(vault.open(damaged, alice)).rejects.toMatchObject({ code: "tampered" });
    await expect(vault.open("aesgcm:AAAA", alice)).rejects.toMatchObject({ code: "tampered" });
  });
});

/** Captures each command's input at the start of the SDK's middleware stack, answering `reply`. */
function capture(
  client: KMSClient,
  reply: (input: Record<string, unknown>) => unknown,
): Array<Record<string, unknown>> {
  const inputs: Array<Record<string, unknown>> = [];
  (
    client.middlewareStack as unknown as {
      add(
        middleware: (next: unknown) => (args: { input: object }) => Promise<unknown>,
        options: { step: "initialize"; name: string },
      ): void;
    }
  ).add(
    () => async (args) => {
      const input = args.input as Record<string, unknown>;
      inputs.push(input);
      return { output: { $metadata: {}, ...(reply(input) as object) }, response: {} };
    },
    { step: "initialize", name: "captureForTest" },
  );
  return inputs;
}

/**
 * KMS as it answers: a ciphertext carries the encryption context it was made under, and a
 * Decrypt under any other context is an InvalidCiphertextException. `deny` answers a Decrypt
 * under a context with another error (e.g. AccessDenied when the role may not use it).
 */
function fakeKms(deny?: (context: Record<string, string>) => Error | undefined) {
  const client = new KMSClient({
    region: "eu-west-1",
    credentials: { accessKeyId: "fake", secretAccessKey: "fake" },
  });
  const inputs = capture(client, (input) => {
    const context = (input.EncryptionContext ?? {}) as Record<string, string>;
    if ("Plaintext" in input) {
      const plain = Buffer.from(input.Plaintext as Uint8Array).toString();
      return { CiphertextBlob: Buffer.from(JSON.stringify([JSON.stringify(context), plain])) };
    }
    const denied = deny?.(context);
    if (denied) throw denied;
    const [sealedUnder, plain] = JSON.parse(
      Buffer.from(input.CiphertextBlob as Uint8Array).toString(),
    ) as [string, string];
    if (sealedUnder !== JSON.stringify(context)) {
      throw new InvalidCiphertextException({ message: "invalid ciphertext", $metadata: {} });
    }
    return { Plaintext: Buffer.from(plain) };
  });
  return { client, inputs };
}

/** The old vault's Encrypt request, sent as it sent it. */
async function oldKmsSeal(client: KMSClient, plain: string): Promise<string> {
  const out = await client.send(
    new EncryptCommand({
      KeyId: "k",
      Plaintext: Buffer.from(plain, "utf8"),
      EncryptionContext: { purpose: OLD_PURPOSE },
    }),
  );
  return `kms:${Buffer.from(out.CiphertextBlob ?? new Uint8Array()).toString("base64")}`;
}

describe("KmsTokenVault and values sealed before owners were bound", () => {
  it("opens an old-format value: first under the owner, then, refused there, under the old context", async () => {
    const { client, inputs } = fakeKms();
    const old = await oldKmsSeal(client, "xoxp-from-before");
    inputs.length = 0;
    const vault = new KmsTokenVault(client, "k");
    expect(await vault.open(old, alice)).toBe("xoxp-from-before");
    expect(inputs.map((i) => i.EncryptionContext)).toEqual([
      { team: "T1", user: "U001", field: "access_token" },
      { purpose: OLD_PURPOSE },
    ]);
    expect(inputs[1]).toMatchObject({ KeyId: "k" });
    expect(await vault.read(old, alice)).toEqual({ kind: "legacy", plain: "xoxp-from-before" });
  });

  it("opens a value sealed to its owner with one request, and never for another owner", async () => {
    const { client, inputs } = fakeKms();
    const vault = new KmsTokenVault(client, "k");
    const sealed = await vault.seal("xoxp-a", alice);
    inputs.length = 0;
    expect(await vault.read(sealed, alice)).toEqual({ kind: "bound", plain: "xoxp-a" });
    expect(inputs).toHaveLength(1);
    await expect(vault.open(sealed, bob)).rejects.toMatchObject({ code: "refused" });
  });

  it("tries the old context only when KMS says the ciphertext is not the owner's", async () => {
    // Prepare: a role that may not Decrypt under the owner's context (or KMS throttling)
    const denied = Object.assign(new Error("not allowed"), { name: "AccessDeniedException" });
    const { client, inputs } = fakeKms((context) => (context.team ? denied : undefined));
    const old = await oldKmsSeal(client, "xoxp-from-before");
    inputs.length = 0;
    // Act / Assess: the failure is thrown as it is, with no second request
    await expect(new KmsTokenVault(client, "k").open(old, alice)).rejects.toMatchObject({
      code: "kms_failed",
    });
    expect(inputs).toHaveLength(1);
  });

  it("fails an old-format value once the old context may no longer be used", async () => {
    const denied = Object.assign(new Error("not allowed"), { name: "AccessDeniedException" });
    const { client } = fakeKms((context) => (context.purpose ? denied : undefined));
    const old = await oldKmsSeal(client, "xoxp-from-before");
    await expect(new KmsTokenVault(client, "k").open(old, alice)).rejects.toMatchObject({
      code: "kms_failed",
    });
  });
});
