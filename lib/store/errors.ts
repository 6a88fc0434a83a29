/** Errors of the DynamoDB store. */
export class StoreError extends Error {
  override name = "StoreError";
  constructor(
    message: string,
    readonly code: "conflict" | "corrupt_item" | "dynamodb_failed",
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A conditional write lost a race (or found the item gone); retry from a fresh read. */
export class ConflictError extends StoreError {
  override name = "ConflictError";
  constructor(
    readonly pk: string,
    readonly sk: string,
    readonly expectedVersion: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(
      `conflicting write to ${pk} ${sk} (expected version ${expectedVersion ?? "none"})`,
      "conflict",
      options,
    );
  }
}

/** An item that cannot be read back; `pointer` names the attribute. */
export class CorruptItemError extends StoreError {
  override name = "CorruptItemError";
  constructor(
    readonly pointer: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, "corrupt_item", options);
  }
}
