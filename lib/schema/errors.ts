import type { Problem } from "./problems";

export type SchemaErrorCode = "manifest_unparseable" | "manifest_invalid";

/** Base of every error lib/schema throws; validation itself returns problems, never throws. */
export class SchemaError extends Error {
  override name = "SchemaError";
  constructor(
    readonly code: SchemaErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The manifest text is neither JSON nor YAML. The message is one line. */
export class ManifestParseError extends SchemaError {
  override name = "ManifestParseError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("manifest_unparseable", message.replace(/\s*\n\s*/g, " ").trim(), options);
  }
}

/** The manifest parsed but did not validate; `errors` are all of its problems. */
export class ManifestInvalidError extends SchemaError {
  override name = "ManifestInvalidError";
  constructor(
    readonly errors: Problem[],
    options?: { cause?: unknown },
  ) {
    super("manifest_invalid", `manifest has ${errors.length} problem(s)`, options);
  }
}
