import { describe, expect, it } from "vitest";
import * as z from "zod";
import { WebhookInputError } from "#lib/http/errors";
import { issuePointer, parseInput, parseJsonInput } from "#lib/http/request";

const refusalOf = (run: () => unknown): WebhookInputError => {
  try {
    run();
  } catch (error: unknown) {
    if (error instanceof WebhookInputError) return error;
    throw error;
  }
  throw new Error("accepted");
};

describe("the one zod-issue-to-pointer helper", () => {
  it("names the field as an RFC 6901 pointer, escaping `/` and `~` in keys", () => {
    expect(issuePointer({ path: ["sources", 0, "url"] })).toBe("/sources/0/url");
    expect(issuePointer({ path: ["rules", "a/b~c"] })).toBe("/rules/a~1b~0c");
  });

  it('answers "/" for an issue with the whole document and "" without an issue', () => {
    expect(issuePointer({ path: [] })).toBe("/");
    expect(issuePointer(undefined)).toBe("");
  });
});

describe("parseInput and parseJsonInput", () => {
  const schema = z.object({ sources: z.array(z.object({ url: z.string() })) });

  it("refuses the first bad field with its pointer, in the message too", () => {
    const error = refusalOf(() => parseInput(schema, { sources: [{ url: 7 }] }));
    expect(error.pointer).toBe("/sources/0/url");
    expect(error.message).toMatch(/^\/sources\/0\/url: /);
    expect(error.code).toBe("bad_request");
  });

  it('refuses a body that is not JSON with the pointer ""', () => {
    const error = refusalOf(() => parseJsonInput(schema, "{nope"));
    expect([error.pointer, error.message]).toEqual(["", "body is not valid JSON"]);
  });
});
