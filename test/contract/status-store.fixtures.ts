import type { SnoozeRecord } from "#lib/core/dnd";
import type { DueTransition, StatusStore } from "#lib/core/ports";
import { initialStatusState } from "#lib/core/reconcile/state";
import type {
  ChannelRecord,
  OutOfOfficeRecord,
  StatusRecord,
  TimelineRecord,
  UserRecord,
} from "#lib/core/records";
import type { UserKey } from "#lib/core/types";

/** Records and helpers for the StatusStore contract (status-store.contract.ts). */
export const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
export const ALICE: UserKey = { team: "T1", user: "UALICE" };
export const BOB: UserKey = { team: "T1", user: "UBOB" };
/** Same user id in another team: a different user. */
export const ALICE_ELSEWHERE: UserKey = { team: "T2", user: "UALICE" };

export const ics = { id: "work", url: "https://cal.example/a.ics", kind: "ics" as const };

export const aUser = (key: UserKey, overrides: Partial<UserRecord> = {}): UserRecord => ({
  key: { ...key },
  tz: "Europe/Berlin",
  tokenSealed: "sealed-token",
  emails: [`${key.user}@example.com`],
  sources: [],
  rules: {},
  mode: "auto",
  version: 0,
  updatedAt: T0,
  ...overrides,
});

export const aStatus = (key: UserKey, overrides: Partial<StatusRecord> = {}): StatusRecord => ({
  key: { ...key },
  state: initialStatusState(),
  version: 0,
  updatedAt: T0,
  ...overrides,
});

/** A transition ahead, explicitly not out-of-office (an omitted flag may read back as false). */
export const dueAt = (nextTransitionAt: number): Partial<StatusRecord> => ({
  nextTransitionAt,
  nextIsOoo: false,
});

/** What the due index answers for a status due at `at` that is not out-of-office nor queued. */
export const aDueEntry = (key: UserKey, at: number): DueTransition => ({
  key: { ...key },
  nextTransitionAt: at,
  nextIsOoo: false,
});

export const aTimeline = (key: UserKey, sourceId: string, updatedAt = T0): TimelineRecord => ({
  key: { ...key },
  sourceId,
  blocks: [
    {
      start: T0,
      end: T0 + 1_800_000,
      text: "Meeting",
      emoji: ":calendar:",
      kind: "meeting",
      expiration: (T0 + 1_800_000) / 1000,
    },
  ],
  etag: '"e1"',
  hash: "h1",
  version: 0,
  updatedAt,
});

export const anAbsence = (key: UserKey, id: string): OutOfOfficeRecord => ({
  key: { ...key },
  id,
  start: T0,
  end: T0 + 86_400_000,
  text: "Away",
  emoji: ":palm_tree:",
  createdAt: T0 - 1,
});

export const aChannel = (channelId: string, sourceId = "g"): ChannelRecord => ({
  channelId,
  key: { ...ALICE },
  sourceId,
  secretSealed: "sealed-secret",
  kind: "google",
  version: 0,
});

/** One kind of versioned record: how to make a variant of it, write it and read it back. */
export interface VersionedKind<R extends { version: number }> {
  name: string;
  /** A record for `key`; different `mark`s give records that compare unequal. */
  make(key: UserKey, mark: number): R;
  put(store: StatusStore, record: R, expectedVersion: number | undefined): Promise<R>;
  get(store: StatusStore, key: UserKey): Promise<R | undefined>;
}

export const userKind: VersionedKind<UserRecord> = {
  name: "user",
  make: (key, mark) =>
    aUser(key, {
      updatedAt: T0 + mark,
      adminTokenUser: "UADMIN",
      sources: [{ ...ics, secretSealed: "s", etag: '"x"', hash: "h", syncedAt: T0 }],
      rules: { showTitles: true, nested: { depth: [mark] } },
      emails: [`${key.user}@example.com`, `alias${mark}@example.com`],
      sessionEpoch: T0 + mark,
      grantedScopes: ["users.profile:write", `dnd:read${mark}`],
    }),
  put: (store, record, expected) => store.putUser(record, expected),
  get: (store, key) => store.getUser(key),
};

export const statusKind: VersionedKind<StatusRecord> = {
  name: "status",
  make: (key, mark) => {
    const state = initialStatusState();
    state.actual = {
      status: { text: `t${mark}`, emoji: ":x:", expiration: 0 },
      observedAt: T0,
      source: "read",
    };
    return aStatus(key, {
      state,
      updatedAt: T0 + mark,
      nextTransitionAt: T0 + 60_000 + mark,
      nextIsOoo: true,
      enqueuedFor: T0 + mark,
    });
  },
  put: (store, record, expected) => store.putStatus(record, expected),
  get: (store, key) => store.getStatus(key),
};

export const timelineKind: VersionedKind<TimelineRecord> = {
  name: "timeline",
  make: (key, mark) => aTimeline(key, "work", T0 + mark),
  put: (store, record, expected) => store.putTimeline(record, expected),
  get: async (store, key) =>
    (await store.loadUser(key)).timelines.find((t) => t.sourceId === "work"),
};

export const channelKind: VersionedKind<ChannelRecord> = {
  name: "channel",
  // Channels are keyed by channel id; the user key names the channel here.
  make: (key, mark) => ({
    ...aChannel(`ch-${key.team}-${key.user}`, `src${mark}`),
    key: { ...key },
  }),
  put: (store, record, expected) => store.putChannel(record, expected),
  get: (store, key) => store.getChannel(`ch-${key.team}-${key.user}`),
};

export const snoozeKind: VersionedKind<SnoozeRecord> = {
  name: "snooze",
  make: (key, mark) => ({
    key: { ...key },
    ours: { blockStart: T0 + mark, blockEnd: T0 + 60_000 * mark, endS: 1_741_600_000 + mark },
    ...(mark % 2 === 0 ? { claim: { blockStart: T0, blockEnd: T0 + mark, claimedAt: T0 } } : {}),
    version: 0,
    updatedAt: T0 + mark,
  }),
  put: (store, record, expected) => store.putSnooze(record, expected),
  get: async (store, key) => (await store.loadUser(key)).snooze,
};

export const byKey = (a: { key: UserKey }, b: { key: UserKey }): number =>
  `${a.key.team} ${a.key.user}`.localeCompare(`${b.key.team} ${b.key.user}`);

export const keyOrder = (a: UserKey, b: UserKey): number =>
  `${a.team} ${a.user}`.localeCompare(`${b.team} ${b.user}`);

export const sortBy = <T>(items: T[], by: (item: T) => string): T[] =>
  [...items].sort((a, b) => by(a).localeCompare(by(b)));

/** Overwrites every nested value of `value` in place, to prove nothing stored shares it. */
export function scribble(value: unknown): void {
  if (value === null || typeof value !== "object") return;
  const record = value as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    const inner = record[name];
    if (inner !== null && typeof inner === "object") scribble(inner);
    else if (name !== "length") record[name] = typeof inner === "number" ? -1 : "scribbled";
  }
  if (Array.isArray(value)) value.push("scribbled");
}
