import type * as z from "zod";
import { toPointer } from "#lib/schema/problems";
import { WebhookInputError } from "./errors";

/** What a webhook use case reads from an HTTP request (the handler builds it from the event). */
export interface WebhookRequest {
  path: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  query: Record<string, string>;
  params: Record<string, string>;
  /** The body exactly as sent: signatures are computed over it. */
  rawBody: string;
}

/** What it answers; the handler turns it into an API Gateway result. */
export type WebhookReply = { status: number; json: unknown } | { status: number; text: string };

export const jsonReply = (status: number, json: unknown): WebhookReply => ({ status, json });
export const textReply = (status: number, text: string): WebhookReply => ({ status, text });

/**
 * The JSON Pointer (RFC 6901) of the field a zod issue is about: the one conversion every "bad
 * input" answer uses. An issue about the whole document answers "/" (as it always has: clients
 * read it as "the body"), and no issue at all "".
 */
export function issuePointer(issue: Pick<z.core.$ZodIssue, "path"> | undefined): string {
  if (issue === undefined) return "";
  const path = issue.path.map((segment) =>
    typeof segment === "number" ? segment : String(segment),
  );
  return toPointer(path) || "/";
}

/** Checks `doc` against `schema`; the first issue becomes a precise WebhookInputError. */
export function parseInput<S extends z.ZodType>(schema: S, doc: unknown): z.infer<S> {
  const parsed = schema.safeParse(doc);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const pointer = issuePointer(issue);
  throw new WebhookInputError(`${pointer || "/"}: ${issue?.message ?? "invalid"}`, pointer, {
    cause: parsed.error,
  });
}

/** Parses `raw` as JSON against `schema`, turning either failure into a WebhookInputError. */
export function parseJsonInput<S extends z.ZodType>(schema: S, raw: string): z.infer<S> {
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch (error: unknown) {
    throw new WebhookInputError("body is not valid JSON", "", { cause: error });
  }
  return parseInput(schema, doc);
}
