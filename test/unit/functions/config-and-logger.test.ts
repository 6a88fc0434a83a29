import { describe, expect, it, vi } from "vitest";
import { createLog, REDACTED, redactSecrets } from "#lib/app/compose/logger";
import { ConfigError, loadConfig } from "#lib/app/config";

const minimal = {
  TABLE_NAME: "statuspilot-dev",
  SERVICE_BASE_URL: "https://svc.example/api",
  SIGNING_SECRET_PARAM: "/statuspilot/dev/signing-secret",
  TOKEN_KMS_KEY_ID: "arn:aws:kms:eu-west-1:123456789012:key/abc",
};

describe("loadConfig", () => {
  it("accepts the AWS shape and fills defaults", () => {
    const config = loadConfig(minimal);
    expect(config).toMatchObject({ LOG_LEVEL: "INFO", AWS_REGION: "us-east-1" });
  });

  it("names every missing variable, and empty strings count as missing", () => {
    // Act
    let caught: unknown;
    try {
      loadConfig({ ...minimal, TABLE_NAME: "", SERVICE_BASE_URL: undefined });
    } catch (error: unknown) {
      caught = error;
    }
    // Assess
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variables.sort()).toEqual(["SERVICE_BASE_URL", "TABLE_NAME"]);
    expect((caught as ConfigError).message).toMatch(/TABLE_NAME is missing/);
  });

  it("requires a signing secret source and a token key source", () => {
    const { SIGNING_SECRET_PARAM: _s, TOKEN_KMS_KEY_ID: _k, ...rest } = minimal;
    expect(() => loadConfig(rest)).toThrow(/SIGNING_SECRET is missing.*TOKEN_KEY is missing/);
  });

  it("never echoes a secret value in its error", () => {
    expect(() =>
      loadConfig({ ...minimal, SIGNING_SECRET: "s3cr3t", SERVICE_BASE_URL: "not a url" }),
    ).toThrow(/SERVICE_BASE_URL is invalid/);
    try {
      loadConfig({ ...minimal, SIGNING_SECRET: "s3cr3t", LOG_LEVEL: "LOUD" });
    } catch (error: unknown) {
      expect(String((error as Error).message)).not.toContain("s3cr3t");
    }
  });
});

describe("logger", () => {
  it("redacts tokens, secrets and signatures at any depth", () => {
    // Prepare
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const log = createLog({ level: "INFO" });
    // Act
    log.info("calling", {
      token: "xoxp-demo-U001",
      nested: { signingSecret: "demo-signing-secret", headers: { "x-svc-signature": "v0=abc" } },
      user: "U001",
    });
    const lines = write.mock.calls.map((c) => String(c[0])).join("");
    write.mockRestore();
    // Assess
    expect(lines).toContain("U001");
    expect(lines).not.toContain("xoxp-demo-U001");
    expect(lines).not.toContain("demo-signing-secret");
    expect(lines).not.toContain("v0=abc");
    expect(lines).toContain(REDACTED);
  });

  it("keeps values of ordinary keys", () => {
    expect(redactSecrets("sourceId", "office")).toBe("office");
    expect(redactSecrets("clientState", "x")).toBe(REDACTED);
  });
});
