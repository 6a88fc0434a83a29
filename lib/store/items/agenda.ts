import type { AgendaEvent } from "#lib/core/agenda";
import type { AgendaRecord } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import { type Item, n, packJson, readN, readPackedJson, readS, s } from "./codec";
import { readUserKey, userItem } from "./item-head";

/**
 * One calendar's agenda (lib/core/agenda.ts): its events near today, packed (codec.ts
 * packJson). In a partition of the user's own, apart from the profile's: the user's snapshot
 * (read by every reconcile) never carries it; only the settings page reads it.
 */

export const AGENDA_PREFIX = "AGENDA#";
const SOURCE_PREFIX = "SOURCE#";
const EVENTS_PACKED = "eventsZ";

export const agendaPk = (key: UserKey): string => `${AGENDA_PREFIX}${key.team}#${key.user}`;

export const agendaKeys = (key: UserKey, sourceId: string) => ({
  PK: agendaPk(key),
  SK: `${SOURCE_PREFIX}${sourceId}`,
});

export function agendaToItem(a: AgendaRecord): Item {
  const keys = agendaKeys(a.key, a.sourceId);
  return {
    ...userItem(keys, "agenda", a.key),
    sourceId: s(a.sourceId),
    updatedAt: n(a.updatedAt),
    [EVENTS_PACKED]: packJson(a.events),
  };
}

export function agendaFromItem(item: Item): AgendaRecord {
  return {
    key: readUserKey(item),
    sourceId: readS(item, "sourceId"),
    events: readPackedJson<AgendaEvent[]>(item, EVENTS_PACKED),
    updatedAt: readN(item, "updatedAt"),
  };
}
