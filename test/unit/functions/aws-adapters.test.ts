import { SSMProvider } from "@aws-lambda-powertools/parameters/ssm";
import { KMSClient } from "@aws-sdk/client-kms";
import { SQSClient } from "@aws-sdk/client-sqs";
import { SSMClient } from "@aws-sdk/client-ssm";
import { describe, expect, it } from "vitest";
import { SqsQueue } from "#lib/app/compose/sqs-queue";
import { ConfigError } from "#lib/app/config";
import { KmsTokenVault, TokenVaultError } from "#lib/app/secrets/kms-vault";
import { readSigningSecret, SIGNING_SECRET_MAX_AGE_S } from "#lib/app/secrets/signing-secret";

const credentials = { accessKeyId: "fake", secretAccessKey: "fake" };

/** The slice of an SDK client's middleware stack this test uses. */
interface Stack {
  add(
    middleware: (next: unknown) => (args: { input: object }) => Promise<unknown>,
    options: { step: "initialize"; name: string },
  ): void;
}

/** Captures each command's input at the start of the SDK's middleware stack, answering `reply`. */
function capture(
  client: SQSClient | KMSClient | SSMClient,
  reply: (input: Record<string, unknown>) => unknown,
): Array<Record<string, unknown>> {
  const inputs: Array<Record<string, unknown>> = [];
  (client.middlewareStack as unknown as Stack).add(
    () => async (args) => {
      const input = args.input as Record<string, unknown>;
      inputs.push(input);
      return { output: { $metadata: {}, ...(reply(input) as object) }, response: {} };
    },
    { step: "initialize", name: "captureForTest" },
  );
  return inputs;
}

describe("SqsQueue", () => {
  it("sends JSON with the delay clamped to SQS's 0..900 s and the dedupe key as an attribute", async () => {
    // Prepare
    const client = new SQSClient({ region: "eu-west-1", credentials });
    const inputs = capture(client, () => ({ MessageId: "m1" }));
    const queue = new SqsQueue<{ user: string }>(client, "https://sqs.eu-west-1.amazonaws.com/1/q");
    // Act
    await queue.send({ user: "U001" }, { delaySeconds: 1200.2, dedupeKey: "k1" });
    await queue.send({ user: "U002" }, { delaySeconds: -4 });
    // Assess
    expect(inputs[0]).toMatchObject({
      MessageBody: '{"user":"U001"}',
      DelaySeconds: 900,
      MessageAttributes: { dedupeKey: { DataType: "String", StringValue: "k1" } },
    });
    expect(inputs[1]).toMatchObject({ DelaySeconds: 0 });
    expect(inputs[1]?.MessageAttributes).toBeUndefined();
  });

  it("sends up to ten messages in one SendMessageBatch request, each with its own clamped delay", async () => {
    // Prepare
    const client = new SQSClient({ region: "eu-west-1", credentials });
    const inputs = capture(client, () => ({ Successful: [], Failed: [] }));
    const queue = new SqsQueue<{ user: string }>(client, "https://sqs.eu-west-1.amazonaws.com/1/q");
    // Act
    await queue.sendBatch([
      { message: { user: "U001" }, delaySeconds: 60 },
      { message: { user: "U002" }, delaySeconds: 4.2, dedupeKey: "k2" },
      { message: { user: "U003" }, delaySeconds: 1200 },
      { message: { user: "U004" } },
    ]);
    // Assess: one request; each entry its own DelaySeconds (whole seconds, 0..900)
    expect(inputs).toEqual([
      {
        QueueUrl: "https://sqs.eu-west-1.amazonaws.com/1/q",
        Entries: [
          { Id: "0", MessageBody: '{"user":"U001"}', DelaySeconds: 60 },
          {
            Id: "1",
            MessageBody: '{"user":"U002"}',
            DelaySeconds: 5,
            MessageAttributes: { dedupeKey: { DataType: "String", StringValue: "k2" } },
          },
          { Id: "2", MessageBody: '{"user":"U003"}', DelaySeconds: 900 },
          { Id: "3", MessageBody: '{"user":"U004"}', DelaySeconds: 0 },
        ],
      },
    ]);
  });

  it("sends again, once, only the entries SQS refused through no fault of ours", async () => {
    // Prepare: the first answer refuses entry 1 (an internal error), the second takes it
    const client = new SQSClient({ region: "eu-west-1", credentials });
    let answers = 0;
    const inputs = capture(client, () =>
      answers++ === 0
        ? {
            Successful: [{ Id: "0", MessageId: "m0", MD5OfMessageBody: "x" }],
            Failed: [{ Id: "1", Code: "InternalError", SenderFault: false }],
          }
        : { Successful: [{ Id: "1", MessageId: "m1", MD5OfMessageBody: "y" }], Failed: [] },
    );
    const queue = new SqsQueue<{ user: string }>(client, "https://sqs.eu-west-1.amazonaws.com/1/q");
    // Act
    await queue.sendBatch([
      { message: { user: "U001" }, delaySeconds: 10 },
      { message: { user: "U002" }, delaySeconds: 20 },
    ]);
    // Assess: the second request carries the refused entry alone, with its own delay
    expect(inputs.map((i) => i.Entries)).toEqual([
      [
        { Id: "0", MessageBody: '{"user":"U001"}', DelaySeconds: 10 },
        { Id: "1", MessageBody: '{"user":"U002"}', DelaySeconds: 20 },
      ],
      [{ Id: "1", MessageBody: '{"user":"U002"}', DelaySeconds: 20 }],
    ]);
  });

  it("throws naming the entries SQS still refused, or refused as our fault, and refuses more than ten", async () => {
    // Prepare
    const alwaysRefused = new SQSClient({ region: "eu-west-1", credentials });
    const alwaysInputs = capture(alwaysRefused, () => ({
      Successful: [],
      Failed: [{ Id: "1", Code: "InternalError", SenderFault: false }],
    }));
    const ourFault = new SQSClient({ region: "eu-west-1", credentials });
    const ourFaultInputs = capture(ourFault, () => ({
      Successful: [{ Id: "0", MessageId: "m0", MD5OfMessageBody: "x" }],
      Failed: [{ Id: "1", Code: "InvalidParameterValue", SenderFault: true }],
    }));
    const url = "https://sqs.eu-west-1.amazonaws.com/1/q";
    const two = [{ message: { user: "U001" } }, { message: { user: "U002" } }];
    const eleven = Array.from({ length: 11 }, (_, i) => ({ message: { user: `U${i}` } }));
    // Act
    const refused = new SqsQueue<{ user: string }>(alwaysRefused, url).sendBatch(two);
    const invalid = new SqsQueue<{ user: string }>(ourFault, url).sendBatch(two);
    const tooMany = new SqsQueue<{ user: string }>(ourFault, url).sendBatch(eleven);
    // Assess: after one retry, or at once for our own fault (no retry would mend it)
    await expect(refused).rejects.toMatchObject({
      code: "queue_send_refused",
      refused: 1,
      message: expect.stringContaining("entries 1;"),
    });
    expect(alwaysInputs).toHaveLength(2);
    await expect(invalid).rejects.toMatchObject({ code: "queue_send_refused", refused: 1 });
    expect(ourFaultInputs).toHaveLength(1);
    await expect(tooMany).rejects.toBeInstanceOf(RangeError);
  });
});

/**
 * A stand-in for KMS behind the real client: its ciphertext carries the encryption context it
 * was made under, and a Decrypt under any other context fails, as KMS's authenticated context does.
 */
function fakeKms(client: KMSClient): Array<Record<string, unknown>> {
  return capture(client, (input) => {
    const context = JSON.stringify(input.EncryptionContext ?? {});
    if ("Plaintext" in input) {
      const plain = Buffer.from(input.Plaintext as Uint8Array).toString();
      return { CiphertextBlob: Buffer.from(JSON.stringify([context, plain])) };
    }
    const [sealedUnder, plain] = JSON.parse(
      Buffer.from(input.CiphertextBlob as Uint8Array).toString(),
    ) as [string, string];
    if (sealedUnder !== context) throw new Error("InvalidCiphertextException");
    return { Plaintext: Buffer.from(plain) };
  });
}

describe("KmsTokenVault", () => {
  const alice = { team: "T1", user: "U001", field: "access_token" } as const;

  it("seals and opens under the owner's context (team, user, field), and opens what it sealed", async () => {
    // Prepare
    const client = new KMSClient({ region: "eu-west-1", credentials });
    const inputs = fakeKms(client);
    const vault = new KmsTokenVault(client, "alias/statuspilot-tokens");
    // Act
    const sealed = await vault.seal("xoxp-demo-U001", alice);
    const opened = await vault.open(sealed, alice);
    // Assess: both requests name the key and carry exactly the owner as encryption context
    expect(sealed).toMatch(/^kms:/);
    expect(sealed).not.toContain("xoxp-demo-U001");
    expect(opened).toBe("xoxp-demo-U001");
    const context = { team: "T1", user: "U001", field: "access_token" };
    expect(inputs).toHaveLength(2);
    expect(inputs[0]).toMatchObject({ KeyId: "alias/statuspilot-tokens" });
    expect(inputs[0]?.EncryptionContext).toEqual(context);
    expect(inputs[1]).toMatchObject({ KeyId: "alias/statuspilot-tokens" });
    expect(inputs[1]?.EncryptionContext).toEqual(context);
  });

  it("asks KMS to open a value under the owner it is read for, so a moved value fails", async () => {
    // Prepare
    const client = new KMSClient({ region: "eu-west-1", credentials });
    const inputs = fakeKms(client);
    const vault = new KmsTokenVault(client, "k");
    const sealed = await vault.seal("xoxp-demo-U001", alice);
    // Act / Assess: another user's item, another field, another team
    await expect(vault.open(sealed, { ...alice, user: "U002" })).rejects.toMatchObject({
      code: "kms_failed",
    });
    await expect(vault.open(sealed, { ...alice, field: "refresh_token" })).rejects.toBeInstanceOf(
      TokenVaultError,
    );
    await expect(vault.open(sealed, { ...alice, team: "T2" })).rejects.toBeInstanceOf(
      TokenVaultError,
    );
    expect(inputs[1]?.EncryptionContext).toEqual({
      team: "T1",
      user: "U002",
      field: "access_token",
    });
  });

  it("refuses to open a token another vault sealed", async () => {
    const vault = new KmsTokenVault(new KMSClient({ region: "eu-west-1", credentials }), "k");
    await expect(vault.open("aesgcm:abc", alice)).rejects.toBeInstanceOf(TokenVaultError);
  });
});

describe("readSigningSecret", () => {
  it("reads the SecureString decrypted, once per cache period, and never caches a failure", async () => {
    // Prepare: an SSM client whose first answer fails, then returns the secret
    const client = new SSMClient({ region: "eu-west-1", credentials });
    let calls = 0;
    const inputs = capture(client, () => {
      calls++;
      if (calls === 1) throw new Error("throttled");
      return { Parameter: { Name: "/sp/signing", Value: "s3cret", Type: "SecureString" } };
    });
    const provider = new SSMProvider({ awsSdkV3Client: client });
    // Act
    const first = await readSigningSecret("eu-west-1", "/sp/signing", provider).catch(
      (error: unknown) => error,
    );
    const second = await readSigningSecret("eu-west-1", "/sp/signing", provider);
    const third = await readSigningSecret("eu-west-1", "/sp/signing", provider);
    // Assess: the failure surfaced, the retry read SSM again, the next read came from the cache
    expect(first).toBeInstanceOf(Error);
    expect(second).toBe("s3cret");
    expect(third).toBe("s3cret");
    expect(inputs).toHaveLength(2);
    expect(inputs[1]).toMatchObject({ Name: "/sp/signing", WithDecryption: true });
    expect(SIGNING_SECRET_MAX_AGE_S).toBeGreaterThan(0);
  });

  it("refuses a parameter without a value with a configuration error naming the variable", async () => {
    // Prepare
    const client = new SSMClient({ region: "eu-west-1", credentials });
    capture(client, () => ({ Parameter: { Name: "/sp/empty", Value: "" } }));
    // Act
    const error = await readSigningSecret(
      "eu-west-1",
      "/sp/empty",
      new SSMProvider({ awsSdkV3Client: client }),
    ).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain("undefined");
  });
});
