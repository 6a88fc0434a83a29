import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { CodedError } from "#lib/core/coded-error";
import { VersionConflict } from "#lib/core/ports";

/** Errors of the DynamoDB store; a lost conditional write is the port's VersionConflict. */
export class StoreError extends CodedError<"conflict" | "corrupt_item" | "dynamodb_failed"> {
  override name = "StoreError";
}

/** A DynamoDB call about `what` failed (name what, never a secret: messages reach logs). */
export const dynamoFailed = (what: string, cause: unknown): StoreError =>
  new StoreError(`${what}: DynamoDB failed`, "dynamodb_failed", { cause });

/**
 * A conditional write lost a race (or found the item gone): the port's VersionConflict, with
 * the item's keys. `existing` is the item as DynamoDB found it, when it returned it (AWS does
 * with ReturnValuesOnConditionCheckFailure; local emulations may not).
 */
export class ConflictError extends VersionConflict {
  override name = "ConflictError";
  readonly existing: Record<string, AttributeValue> | undefined;
  constructor(
    readonly pk: string,
    readonly sk: string,
    expectedVersion: number | undefined,
    options?: { cause?: unknown; existing?: Record<string, AttributeValue> },
  ) {
    super(
      `${pk} ${sk}`,
      expectedVersion,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.existing = options?.existing;
  }

  /** The version the item had when the write lost, when known. */
  get existingVersion(): number | undefined {
    const v = this.existing?.version;
    return v !== undefined && "N" in v && v.N !== undefined ? Number(v.N) : undefined;
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
