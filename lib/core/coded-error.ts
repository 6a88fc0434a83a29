/**
 * The root of a module's error hierarchy: a message, the module's typed `code` and the cause
 * when there is one. A module's base error only names itself and its codes:
 * `class StoreError extends CodedError<"conflict" | …> { override name = "StoreError"; }`.
 */
export class CodedError<Code extends string> extends Error {
  override name = "CodedError";
  constructor(
    message: string,
    readonly code: Code,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
