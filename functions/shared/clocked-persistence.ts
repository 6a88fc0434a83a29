import {
  IdempotencyItemAlreadyExistsError,
  IdempotencyItemNotFoundError,
  IdempotencyRecordStatus,
  PERSISTENCE_ATTRIBUTE_KEY_MAPPINGS,
} from "@aws-lambda-powertools/idempotency";
import { DynamoDBPersistenceLayer } from "@aws-lambda-powertools/idempotency/dynamodb";
import { IdempotencyRecord } from "@aws-lambda-powertools/idempotency/persistence";
import type {
  IdempotencyRecordOptions,
  IdempotencyRecordStatusValue,
} from "@aws-lambda-powertools/idempotency/types";
import { ConditionalCheckFailedException, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Clock } from "#lib/core/clock";
import { TTL_ATTRIBUTE } from "#lib/store/table";

/** Where one gate keeps its records: our single table, one partition per gate. */
export interface GateTable {
  client: DynamoDBClient;
  tableName: string;
  /** The partition key of every record of the gate ("IDEMPOTENCY#<gate>"). */
  partition: string;
}

const { statusAttr, inProgressExpiryAttr, dataAttr } = PERSISTENCE_ATTRIBUTE_KEY_MAPPINGS;
const KEY_ATTR = "PK";
const SORT_KEY_ATTR = "SK";

/** A record that tells whether it has expired by the clock. */
class ClockedRecord extends IdempotencyRecord {
  constructor(
    options: IdempotencyRecordOptions,
    private readonly clock: Clock,
  ) {
    super(options);
  }
  override isExpired(): boolean {
    return this.expiryTimestamp !== undefined && this.clock.now() / 1000 > this.expiryTimestamp;
  }
}

type Payload = Parameters<DynamoDBPersistenceLayer["saveInProgress"]>[0];
type Result = Parameters<DynamoDBPersistenceLayer["saveSuccess"]>[1];

/**
 * Powertools' DynamoDB persistence layer on the app's Clock. Powertools reads the machine's time where
 * it stamps a record's expiry and its in-progress deadline, where its conditional put decides
 * that a stored record has expired, and where a record judges itself expired; each of those is
 * done here with the clock, so an event is remembered for its hour of the app's time, like every
 * other expiry in the table. Reads, the completion update and the delete stay Powertools' own.
 *
 * Our gates use neither payload validation nor the local cache, and this layer supports neither.
 */
export class ClockedPersistenceLayer extends DynamoDBPersistenceLayer {
  private readonly documents: DynamoDBDocumentClient;

  constructor(
    private readonly table: GateTable,
    private readonly clock: Clock,
  ) {
    super({
      tableName: table.tableName,
      keyAttr: KEY_ATTR,
      sortKeyAttr: SORT_KEY_ATTR,
      staticPkValue: table.partition,
      expiryAttr: TTL_ATTRIBUTE,
      awsSdkV3Client: table.client,
    });
    this.documents = DynamoDBDocumentClient.from(table.client);
  }

  override async saveInProgress(data: Payload, remainingTimeInMillis?: number): Promise<void> {
    await this._putRecord(
      this.record({
        idempotencyKey: this.getHashedIdempotencyKey(data),
        status: IdempotencyRecordStatus.INPROGRESS,
        expiryTimestamp: this.expiryTimestamp(),
        // Without an invocation's deadline only the record's expiry ends the in-progress state.
        ...(remainingTimeInMillis
          ? { inProgressExpiryTimestamp: this.clock.now() + remainingTimeInMillis }
          : {}),
      }),
    );
  }

  override async saveSuccess(data: Payload, result: Result): Promise<void> {
    await this._updateRecord(
      this.record({
        idempotencyKey: this.getHashedIdempotencyKey(data),
        status: IdempotencyRecordStatus.COMPLETED,
        expiryTimestamp: this.expiryTimestamp(),
        responseData: result,
      }),
    );
  }

  protected override async _getRecord(idempotencyKey: string): Promise<IdempotencyRecord> {
    const { Item: item } = await this.documents.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: this.keyOf(idempotencyKey),
        ConsistentRead: true,
      }),
    );
    if (item === undefined) throw new IdempotencyItemNotFoundError();
    // Read as Powertools reads it: the key is the partition's, the hashed key the sort key.
    return this.record({
      idempotencyKey: item[KEY_ATTR],
      sortKey: item[SORT_KEY_ATTR],
      status: item[statusAttr] as IdempotencyRecordStatusValue,
      expiryTimestamp: item[TTL_ATTRIBUTE],
      inProgressExpiryTimestamp: item[inProgressExpiryAttr],
      responseData: item[dataAttr],
    });
  }

  /**
   * Powertools' conditional put with the clock's now: the record is written when its key is
   * new, when the stored record has expired, or when it is still in progress past the deadline
   * of the invocation that wrote it. Otherwise Powertools reads the stored record and answers
   * from it (dynalite returns no old item with a failed condition, so it is read either way).
   */
  protected override async _putRecord(record: IdempotencyRecord): Promise<void> {
    const now = this.clock.now();
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: {
            ...this.keyOf(record.idempotencyKey),
            [TTL_ATTRIBUTE]: record.expiryTimestamp,
            [statusAttr]: record.getStatus(),
            ...(record.inProgressExpiryTimestamp === undefined
              ? {}
              : { [inProgressExpiryAttr]: record.inProgressExpiryTimestamp }),
          },
          ConditionExpression:
            "attribute_not_exists(#id) OR #expiry < :now OR " +
            "(#status = :inprogress AND attribute_exists(#in_progress_expiry) AND #in_progress_expiry < :now_in_millis)",
          ExpressionAttributeNames: {
            "#id": KEY_ATTR,
            "#expiry": TTL_ATTRIBUTE,
            "#status": statusAttr,
            "#in_progress_expiry": inProgressExpiryAttr,
          },
          ExpressionAttributeValues: {
            ":now": now / 1000,
            ":now_in_millis": now,
            ":inprogress": IdempotencyRecordStatus.INPROGRESS,
          },
        }),
      );
    } catch (error: unknown) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      throw new IdempotencyItemAlreadyExistsError(
        `Failed to put record for already existing idempotency key: ${this.table.partition} and sort key: ${record.idempotencyKey}`,
      );
    }
  }

  private record(options: IdempotencyRecordOptions): IdempotencyRecord {
    return new ClockedRecord(options, this.clock);
  }

  /** A record written now expires after the configured seconds (rounded as Powertools does). */
  private expiryTimestamp(): number {
    return Math.round(this.clock.now() / 1000 + this.getExpiresAfterSeconds());
  }

  private keyOf(idempotencyKey: string): Record<string, string> {
    return { [KEY_ATTR]: this.table.partition, [SORT_KEY_ATTR]: idempotencyKey };
  }
}
