import type { Clock } from "#lib/core/clock";
import type { Log, SealedField, SealOwner, StatusStore } from "#lib/core/ports";
import type { ChannelRecord, SourceRecord, UserRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { retryOnConflict } from "../version-retry";
import type { SealReadingVault } from "./legacy-seals";
import { hasPlainAddress, sealAddress } from "./source-address";

/**
 * The one-shot upgrade after secrets were bound to their owner (`statuspilot migrate-seals`, and
 * the local stack at start): every secret sealed before, under the old purpose-only context, is
 * sealed again under its owner and field, and every calendar address still stored in clear is
 * sealed. Each item is rewritten with a write conditional on the version read, redone from a
 * fresh read when it loses a race. Idempotent: a value already sealed to its owner is left as it
 * is, so a second run writes nothing. A value that opens for its owner under neither format
 * (another user's, damaged) is never sealed again: it is counted and left failing.
 */

/** Where the migration finds every item that may hold a secret. */
export interface SealedRecordKeys {
  /** Every user's key and every push channel's id (a full read of the store). */
  list(): Promise<{ users: UserKey[]; channels: string[] }>;
}

export interface SealMigrationDeps {
  store: Pick<StatusStore, "getUser" | "putUser" | "getChannel" | "putChannel">;
  keys: SealedRecordKeys;
  vault: SealReadingVault;
  clock: Clock;
  log: Log;
  /** Count what would change, write nothing (and seal nothing). */
  dryRun?: boolean;
}

/** A value that opens for its owner under neither format; `item` names no secret. */
export interface RefusedValue {
  item: string;
  field: SealedField;
}

export interface SealMigrationReport {
  users: number;
  channels: number;
  /** Old-format values sealed again under their owner (dry run: that would be). */
  resealed: number;
  /** Calendar addresses stored in clear, now sealed (dry run: that would be). */
  addressesSealed: number;
  /** Values already sealed to their owner, left as they are. */
  alreadyBound: number;
  /** Values that open for their owner under no format, left as they are (still failing). */
  refused: RefusedValue[];
  /** Writes that lost a race and were redone from a fresh read. */
  conflicts: number;
  /**
   * Old-format values and clear addresses still stored after this run: those of items whose
   * every try lost a race, or, in a dry run, every one found. Zero: the legacy grant can go.
   */
  legacyLeft: number;
}

/** Tries per item before it is left for the next run. */
const MAX_TRIES = 5;
/** Items migrated at once. */
const PARALLEL = 8;

interface Tally {
  resealed: number;
  addressesSealed: number;
  alreadyBound: number;
  refused: RefusedValue[];
}

const emptyTally = (): Tally => ({ resealed: 0, addressesSealed: 0, alreadyBound: 0, refused: [] });

const userName = (key: UserKey): string => `user ${key.team}/${key.user}`;

export async function migrateSeals(deps: SealMigrationDeps): Promise<SealMigrationReport> {
  const { users, channels } = await deps.keys.list();
  const report: SealMigrationReport = {
    users: users.length,
    channels: channels.length,
    resealed: 0,
    addressesSealed: 0,
    alreadyBound: 0,
    refused: [],
    conflicts: 0,
    legacyLeft: 0,
  };
  const jobs = [
    ...users.map((key) => () => migrateItem(deps, report, userItem(deps, key))),
    ...channels.map((id) => () => migrateItem(deps, report, channelItem(deps, id))),
  ];
  for (let i = 0; i < jobs.length; i += PARALLEL) {
    await Promise.all(jobs.slice(i, i + PARALLEL).map((job) => job()));
  }
  for (const refused of report.refused) {
    deps.log.warn("sealed value opens for its owner in no format; left as it is", { ...refused });
  }
  return report;
}

/** One stored item: how to read it, re-seal its values, and write it back conditionally. */
interface MigratedItem<T extends { version: number }> {
  get(): Promise<T | undefined>;
  /** The record with its values re-sealed, or undefined when nothing changes. */
  migrate(record: T, tally: Tally): Promise<T | undefined>;
  put(record: T, expectedVersion: number): Promise<unknown>;
}

async function migrateItem<T extends { version: number }>(
  deps: SealMigrationDeps,
  report: SealMigrationReport,
  item: MigratedItem<T>,
): Promise<void> {
  let tries = 0;
  let last = emptyTally();
  const done = await retryOnConflict(
    MAX_TRIES,
    async () => {
      tries += 1;
      last = emptyTally();
      const record = await item.get();
      if (record === undefined) return true;
      const next = await item.migrate(record, last);
      if (next !== undefined && !deps.dryRun) await item.put(next, record.version);
      return true;
    },
    () => false,
  );
  report.conflicts += done ? tries - 1 : tries;
  report.alreadyBound += last.alreadyBound;
  report.refused.push(...last.refused);
  const written = done && !deps.dryRun;
  if (written || deps.dryRun) {
    report.resealed += last.resealed;
    report.addressesSealed += last.addressesSealed;
  }
  if (!written) report.legacyLeft += last.resealed + last.addressesSealed;
}

/**
 * The value sealed to `owner`: as it is when it already is (or opens for nobody), sealed again
 * when it is in the old format. The one place the migration seals a secret.
 */
async function resealed(
  deps: SealMigrationDeps,
  tally: Tally,
  item: string,
  sealed: string,
  owner: SealOwner,
): Promise<string> {
  const reading = await deps.vault.read(sealed, owner);
  if (reading.kind === "bound") {
    tally.alreadyBound += 1;
    return sealed;
  }
  if (reading.kind === "refused") {
    tally.refused.push({ item, field: owner.field });
    return sealed;
  }
  tally.resealed += 1;
  return deps.dryRun ? sealed : deps.vault.seal(reading.plain, owner);
}

function userItem(deps: SealMigrationDeps, key: UserKey): MigratedItem<UserRecord> {
  const name = userName(key);
  const owner = (field: SealedField): SealOwner => ({ team: key.team, user: key.user, field });
  const migrateSource = async (source: SourceRecord, tally: Tally): Promise<SourceRecord> => {
    let next = source;
    if (source.secretSealed !== undefined) {
      const secretSealed = await resealed(
        deps,
        tally,
        `${name} source ${source.id}`,
        source.secretSealed,
        owner("source_secret"),
      );
      next = { ...next, secretSealed };
    }
    // Addresses were never sealed in the old format: only those in clear need sealing.
    if (source.url !== undefined && hasPlainAddress(source)) {
      tally.addressesSealed += 1;
      if (!deps.dryRun) {
        const { url: _clear, ...rest } = next;
        next = { ...rest, ...(await sealAddress(deps.vault, key, source.id, source.url)) };
      }
    }
    return next;
  };
  return {
    get: () => deps.store.getUser(key),
    migrate: async (user, tally) => {
      const tokenSealed = await resealed(
        deps,
        tally,
        name,
        user.tokenSealed,
        owner("access_token"),
      );
      const refreshTokenSealed =
        user.refreshTokenSealed === undefined
          ? undefined
          : await resealed(deps, tally, name, user.refreshTokenSealed, owner("refresh_token"));
      const sources: SourceRecord[] = [];
      for (const source of user.sources) sources.push(await migrateSource(source, tally));
      if (tally.resealed + tally.addressesSealed === 0) return undefined;
      return {
        ...user,
        tokenSealed,
        ...(refreshTokenSealed !== undefined ? { refreshTokenSealed } : {}),
        sources,
        updatedAt: deps.clock.now(),
      };
    },
    put: (user, expectedVersion) => deps.store.putUser(user, expectedVersion),
  };
}

function channelItem(deps: SealMigrationDeps, channelId: string): MigratedItem<ChannelRecord> {
  return {
    get: () => deps.store.getChannel(channelId),
    migrate: async (channel, tally) => {
      if (channel.secretSealed === undefined) return undefined;
      const secretSealed = await resealed(
        deps,
        tally,
        `channel of ${userName(channel.key)} source ${channel.sourceId}`,
        channel.secretSealed,
        { ...channel.key, field: "channel_secret" },
      );
      return tally.resealed === 0 ? undefined : { ...channel, secretSealed };
    },
    put: (channel, expectedVersion) => deps.store.putChannel(channel, expectedVersion),
  };
}
