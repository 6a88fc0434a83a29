import type { SourceRecord, UserRecord } from "../../app/ports";
import type { UserKey } from "../../core/types";
import { shardOf } from "../table";
import { type Item, n, readJson, readN, readS, s, userPk } from "./codec";

/** The user profile item: settings, zone, sealed token, calendar sources, rules, mode. */

/** How often an ICS source is polled as a safety net behind push. */
export const POLL_INTERVAL_MS = 15 * 60_000;

export const userKeys = (key: UserKey) => ({ PK: userPk(key.team, key.user), SK: "PROFILE" });

/** When the earliest source of an active user is due for its poll; undefined when none is. */
export function nextPollAt(user: UserRecord): number | undefined {
  if (user.mode !== "auto" || user.sources.length === 0) return undefined;
  return Math.min(...user.sources.map((src) => (src.syncedAt ?? 0) + POLL_INTERVAL_MS));
}

export function userToItem(user: UserRecord): Item {
  const keys = userKeys(user.key);
  const item: Item = {
    PK: s(keys.PK),
    SK: s(keys.SK),
    type: s("user"),
    team: s(user.key.team),
    user: s(user.key.user),
    version: n(user.version),
    updatedAt: n(user.updatedAt),
    data: s(
      JSON.stringify({
        tz: user.tz,
        tokenSealed: user.tokenSealed,
        adminTokenUser: user.adminTokenUser,
        emails: user.emails,
        sources: user.sources,
        rules: user.rules,
        mode: user.mode,
      }),
    ),
  };
  const due = nextPollAt(user);
  if (due !== undefined) {
    item.GSI2PK = s(`POLL#${shardOf(keys.PK)}`);
    item.GSI2SK = n(due);
  }
  return item;
}

interface UserData {
  tz: string;
  tokenSealed: string;
  adminTokenUser?: string;
  emails?: string[];
  sources?: SourceRecord[];
  rules?: Record<string, unknown>;
  mode?: UserRecord["mode"];
}

export function userFromItem(item: Item): UserRecord {
  const data = readJson<UserData>(item, "data");
  return {
    key: { team: readS(item, "team"), user: readS(item, "user") },
    tz: data.tz,
    tokenSealed: data.tokenSealed,
    ...(data.adminTokenUser !== undefined ? { adminTokenUser: data.adminTokenUser } : {}),
    emails: data.emails ?? [],
    sources: data.sources ?? [],
    rules: data.rules ?? {},
    mode: data.mode ?? "auto",
    version: readN(item, "version"),
    updatedAt: readN(item, "updatedAt"),
  };
}
