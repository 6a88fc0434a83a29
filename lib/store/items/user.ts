import { pollPhaseOf } from "#lib/core/poll";
import type { PolledUser } from "#lib/core/ports";
import type { SourceRecord, UserRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { shardOf } from "../table";
import { type Item, n, readJson, readN, s, userPk } from "./codec";
import { readUserKey, userItem } from "./item-head";

/** The user profile item: settings, zone, sealed token, calendar sources, rules, mode. */

export const userKeys = (key: UserKey) => ({ PK: userPk(key.team, key.user), SK: "PROFILE" });

/**
 * Where in each POLL_INTERVAL_MS a user's sources are polled (ms, FNV-1a of the user's key):
 * they are due whenever `now - phase` crosses a multiple of the interval. The phase is fixed, so
 * a check never moves the poll index's key, and an unchanged feed's check writes nothing.
 */
export const pollPhase = (key: UserKey): number => pollPhaseOf(key);

/**
 * Whether the poll index holds the user: an active user with at least one source, whose team
 * still has the app installed.
 */
export const isPolled = (user: UserRecord): boolean =>
  user.mode === "auto" && user.sources.length > 0 && user.uninstalledAt === undefined;

export function userToItem(user: UserRecord): Item {
  const keys = userKeys(user.key);
  const item: Item = {
    ...userItem(keys, "user", user.key),
    version: n(user.version),
    updatedAt: n(user.updatedAt),
    // Apart from `data`: the poll index projects the sources and nothing else of the profile.
    sources: s(JSON.stringify(user.sources)),
    data: s(
      JSON.stringify({
        tz: user.tz,
        tokenSealed: user.tokenSealed,
        adminTokenUser: user.adminTokenUser,
        emails: user.emails,
        rules: user.rules,
        mode: user.mode,
        sessionEpoch: user.sessionEpoch,
        refreshTokenSealed: user.refreshTokenSealed,
        tokenExpiresAt: user.tokenExpiresAt,
        tokenRefreshUntil: user.tokenRefreshUntil,
        uninstalledAt: user.uninstalledAt,
        grantedScopes: user.grantedScopes,
        dmsOff: user.dmsOff,
      }),
    ),
  };
  if (isPolled(user)) {
    item.GSI2PK = s(`POLL#${shardOf(keys.PK)}`);
    item.GSI2SK = n(pollPhase(user.key));
  }
  return item;
}

interface UserData {
  tz: string;
  tokenSealed: string;
  adminTokenUser?: string;
  emails?: string[];
  /** Where items written before sources had their own attribute keep them. */
  sources?: SourceRecord[];
  rules?: Record<string, unknown>;
  mode?: UserRecord["mode"];
  sessionEpoch?: number;
  refreshTokenSealed?: string;
  tokenExpiresAt?: number;
  tokenRefreshUntil?: number;
  uninstalledAt?: number;
  grantedScopes?: string[];
  dmsOff?: boolean;
}

export function userFromItem(item: Item): UserRecord {
  const data = readJson<UserData>(item, "data");
  return {
    key: readUserKey(item),
    tz: data.tz,
    tokenSealed: data.tokenSealed,
    ...(data.adminTokenUser !== undefined ? { adminTokenUser: data.adminTokenUser } : {}),
    emails: data.emails ?? [],
    sources: sourcesOf(item) ?? data.sources ?? [],
    rules: data.rules ?? {},
    mode: data.mode ?? "auto",
    ...(data.refreshTokenSealed !== undefined
      ? { refreshTokenSealed: data.refreshTokenSealed }
      : {}),
    ...(data.tokenExpiresAt !== undefined ? { tokenExpiresAt: data.tokenExpiresAt } : {}),
    ...(data.tokenRefreshUntil !== undefined ? { tokenRefreshUntil: data.tokenRefreshUntil } : {}),
    ...(data.uninstalledAt !== undefined ? { uninstalledAt: data.uninstalledAt } : {}),
    version: readN(item, "version"),
    updatedAt: readN(item, "updatedAt"),
    ...(data.sessionEpoch !== undefined ? { sessionEpoch: data.sessionEpoch } : {}),
    ...(data.grantedScopes !== undefined ? { grantedScopes: data.grantedScopes } : {}),
    ...(data.dmsOff === true ? { dmsOff: true } : {}),
  };
}

/** The item's own `sources` attribute, undefined on an item written before it existed. */
const sourcesOf = (item: Item): SourceRecord[] | undefined =>
  item.sources === undefined ? undefined : readJson<SourceRecord[]>(item, "sources");

/**
 * A poll index entry: the user's key and sources, or undefined for an entry of a profile
 * written before sources had their own attribute (the caller reads that profile whole).
 */
export function polledFromItem(item: Item): PolledUser | undefined {
  const sources = sourcesOf(item);
  if (sources === undefined) return undefined;
  return { key: readUserKey(item), sources };
}
