import type { SnoozeRecord } from "#lib/core/dnd";
import type { DueTransition, PolledUser, StatusStore } from "#lib/core/ports";
import type {
  ChannelRecord,
  OutOfOfficeRecord,
  StatusRecord,
  TimelineRecord,
  UserRecord,
  UserSnapshot,
} from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { ConflictError } from "./errors";
import { channelKeys } from "./items/channel";
import { oooKeys } from "./items/ooo";
import { snoozeKeys } from "./items/snooze";
import { statusKeys } from "./items/status";
import { timelineKeys } from "./items/timeline";
import { isPolled, pollPhase, userKeys } from "./items/user";

/**
 * A StatusStore held in memory, for unit tests of the use cases and for tooling that needs no
 * DynamoDB. It keeps the DynamoDB store's rules (test/contract/status-store.contract.ts): writes
 * conditional on the version read before, a lost race throws `ConflictError`, and event records
 * count as absent from their expiry on. Every record is copied on the way in and on the way out,
 * so no caller ever shares an object with what is stored.
 */
export class MemoryStore implements StatusStore {
  /** One partition per user, like the table's `USER#team#user` partition. */
  private readonly users = new Map<string, UserPartition>();
  private readonly channels = new Map<string, ChannelRecord>();
  /** Event id → expiry, epoch ms. */

  async loadUser(key: UserKey): Promise<UserSnapshot> {
    const partition = this.users.get(userId(key));
    const snapshot: UserSnapshot = { timelines: [], ooo: [] };
    if (!partition) return snapshot;
    if (partition.profile) snapshot.user = copy(partition.profile);
    if (partition.status) snapshot.status = copy(partition.status);
    // In the order of the table's sort key, as a DynamoDB query returns them.
    snapshot.timelines = sortedValues(partition.timelines).map(copy);
    snapshot.ooo = sortedValues(partition.ooo).map(copy);
    if (partition.snooze) snapshot.snooze = copy(partition.snooze);
    return snapshot;
  }

  async getUserAndStatus(key: UserKey): Promise<Pick<UserSnapshot, "user" | "status">> {
    const partition = this.users.get(userId(key));
    return {
      ...(partition?.profile ? { user: copy(partition.profile) } : {}),
      ...(partition?.status ? { status: copy(partition.status) } : {}),
    };
  }

  async getUser(key: UserKey): Promise<UserRecord | undefined> {
    return copyOf(this.users.get(userId(key))?.profile);
  }

  async putUser(user: UserRecord, expectedVersion: number | undefined): Promise<UserRecord> {
    const partition = this.partition(user.key);
    const next = nextVersion(user, partition.profile, expectedVersion, () => userKeys(user.key));
    partition.profile = next;
    return copy(next);
  }

  async getStatus(key: UserKey): Promise<StatusRecord | undefined> {
    return copyOf(this.users.get(userId(key))?.status);
  }

  async putStatus(
    status: StatusRecord,
    expectedVersion: number | undefined,
  ): Promise<StatusRecord> {
    const partition = this.partition(status.key);
    const next = nextVersion(status, partition.status, expectedVersion, () =>
      statusKeys(status.key),
    );
    partition.status = next;
    return copy(next);
  }

  async putSnooze(
    snooze: SnoozeRecord,
    expectedVersion: number | undefined,
  ): Promise<SnoozeRecord> {
    const partition = this.partition(snooze.key);
    const next = nextVersion(snooze, partition.snooze, expectedVersion, () =>
      snoozeKeys(snooze.key),
    );
    partition.snooze = next;
    return copy(next);
  }

  async putTimeline(
    timeline: TimelineRecord,
    expectedVersion: number | undefined,
  ): Promise<TimelineRecord> {
    const timelines = this.partition(timeline.key).timelines;
    const next = nextVersion(timeline, timelines.get(timeline.sourceId), expectedVersion, () =>
      timelineKeys(timeline.key, timeline.sourceId),
    );
    timelines.set(timeline.sourceId, next);
    return copy(next);
  }

  async deleteTimeline(key: UserKey, sourceId: string): Promise<void> {
    this.users.get(userId(key))?.timelines.delete(sourceId);
  }

  async createOutOfOffice(entry: OutOfOfficeRecord): Promise<void> {
    const ooo = this.partition(entry.key).ooo;
    if (ooo.has(entry.id)) {
      const keys = oooKeys(entry.key, entry.id);
      throw new ConflictError(keys.PK, keys.SK, undefined);
    }
    // Only the entry's own fields, as the table stores them.
    const { key, id, start, end, text, emoji, createdAt } = entry;
    ooo.set(id, copy({ key, id, start, end, text, emoji, createdAt }));
  }

  async deleteOutOfOffice(key: UserKey, id: string): Promise<OutOfOfficeRecord | undefined> {
    const ooo = this.users.get(userId(key))?.ooo;
    const entry = ooo?.get(id);
    ooo?.delete(id);
    return entry;
  }

  async putChannel(
    channel: ChannelRecord,
    expectedVersion: number | undefined,
  ): Promise<ChannelRecord> {
    const next = nextVersion(channel, this.channels.get(channel.channelId), expectedVersion, () =>
      channelKeys(channel.channelId),
    );
    this.channels.set(channel.channelId, next);
    return copy(next);
  }

  async getChannel(channelId: string): Promise<ChannelRecord | undefined> {
    return copyOf(this.channels.get(channelId));
  }

  async channelsOf(key: UserKey): Promise<ChannelRecord[]> {
    const id = userId(key);
    return [...this.channels.values()].filter((c) => userId(c.key) === id).map((c) => copy(c));
  }

  async dueBetween(from: number, to: number): Promise<DueTransition[]> {
    const due: DueTransition[] = [];
    for (const { status } of this.users.values()) {
      const at = status?.nextTransitionAt;
      if (status && at !== undefined && at >= from && at < to) {
        due.push({
          key: { ...status.key },
          nextTransitionAt: at,
          // As the index holds it: a scheduled transition is out-of-office or not.
          nextIsOoo: status.nextIsOoo === true,
          ...(status.enqueuedFor !== undefined ? { enqueuedFor: status.enqueuedFor } : {}),
        });
      }
    }
    // The port promises no order; earliest first keeps test runs repeatable.
    return due.sort((a, b) => a.nextTransitionAt - b.nextTransitionAt);
  }

  async usersToPoll(phaseFrom: number, phaseTo: number): Promise<PolledUser[]> {
    const polled: PolledUser[] = [];
    for (const { profile } of this.users.values()) {
      if (!profile || !isPolled(profile)) continue;
      const phase = pollPhase(profile.key);
      if (phase >= phaseFrom && phase < phaseTo) {
        polled.push({ key: { ...profile.key }, sources: copy(profile.sources) });
      }
    }
    return polled;
  }

  async deleteUserData(key: UserKey): Promise<number> {
    const id = userId(key);
    const partition = this.users.get(id);
    let deleted = 0;
    if (partition) {
      deleted += (partition.profile ? 1 : 0) + (partition.status ? 1 : 0);
      deleted += partition.snooze ? 1 : 0;
      deleted += partition.timelines.size + partition.ooo.size;
      this.users.delete(id);
    }
    for (const [channelId, channel] of this.channels) {
      if (userId(channel.key) !== id) continue;
      this.channels.delete(channelId);
      deleted += 1;
    }
    return deleted;
  }

  async usersOfTeam(team: string): Promise<UserRecord[]> {
    return this.profilesWhere((key) => key.team === team);
  }

  async usersWithId(user: string): Promise<UserRecord[]> {
    return this.profilesWhere((key) => key.user === user);
  }

  private profilesWhere(test: (key: UserKey) => boolean): UserRecord[] {
    const found: UserRecord[] = [];
    for (const { profile } of this.users.values()) {
      if (profile !== undefined && test(profile.key)) found.push(copy(profile));
    }
    return found;
  }

  private partition(key: UserKey): UserPartition {
    const id = userId(key);
    let partition = this.users.get(id);
    if (!partition) {
      partition = { timelines: new Map(), ooo: new Map() };
      this.users.set(id, partition);
    }
    return partition;
  }
}

interface UserPartition {
  profile?: UserRecord;
  status?: StatusRecord;
  snooze?: SnoozeRecord;
  /** By source id. */
  timelines: Map<string, TimelineRecord>;
  /** By entry id. */
  ooo: Map<string, OutOfOfficeRecord>;
}

/** A key no two users share, whatever characters their ids hold. */
const userId = (key: UserKey): string => JSON.stringify([key.team, key.user]);

const copy = <T>(value: T): T => structuredClone(value);

const copyOf = <T>(value: T | undefined): T | undefined =>
  value === undefined ? undefined : copy(value);

const sortedValues = <T>(records: Map<string, T>): T[] =>
  [...records.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);

/**
 * The record to store as the version after `expectedVersion` (1 when creating), or a conflict
 * when `current` is not at that version (or exists when creating, or is missing when updating).
 */
function nextVersion<T extends { version: number }>(
  record: T,
  current: { version: number } | undefined,
  expectedVersion: number | undefined,
  keys: () => { PK: string; SK: string },
): T {
  const holds =
    expectedVersion === undefined ? current === undefined : current?.version === expectedVersion;
  if (!holds) {
    const { PK, SK } = keys();
    throw new ConflictError(PK, SK, expectedVersion);
  }
  return copy({ ...record, version: (expectedVersion ?? 0) + 1 });
}
