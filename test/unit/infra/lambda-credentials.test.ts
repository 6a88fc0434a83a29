import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultProvider } from "#infra/lambda-credentials";

const NAMES = [
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_CREDENTIAL_EXPIRATION",
  "AWS_CONTAINER_CREDENTIALS_FULL_URI",
  "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
];
let saved: Record<string, string | undefined> = {};

describe("the bundles' credential provider", () => {
  beforeEach(() => {
    saved = Object.fromEntries(NAMES.map((n) => [n, process.env[n]]));
    for (const n of NAMES) delete process.env[n];
  });
  afterEach(() => {
    for (const n of NAMES) {
      if (saved[n] === undefined) delete process.env[n];
      else process.env[n] = saved[n];
    }
  });

  it("answers with the role credentials Lambda puts in the environment", async () => {
    // Prepare
    process.env.AWS_ACCESS_KEY_ID = "AKIDEXAMPLE";
    process.env.AWS_SECRET_ACCESS_KEY = "secret";
    process.env.AWS_SESSION_TOKEN = "token";
    // Act
    const credentials = await defaultProvider()();
    // Assess
    expect(credentials).toMatchObject({
      accessKeyId: "AKIDEXAMPLE",
      secretAccessKey: "secret",
      sessionToken: "token",
    });
  });

  it("fails with the environment's reason when neither the environment nor a container endpoint has any", async () => {
    await expect(defaultProvider()()).rejects.toThrow(/environment variable credentials/i);
  });
});
