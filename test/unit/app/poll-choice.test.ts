import { describe, expect, it } from "vitest";
import type { ConnectAccess } from "#lib/app/accounts/access";
import { createConnectedSync, readConnectedSource } from "#lib/app/connect/connected-sync";
import type { UseCaseContext } from "#lib/app/context";
import type { SyncMessage } from "#lib/app/contracts";
import { pollChecks } from "#lib/app/push/plan";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { loadSource, sourcesDue } from "#lib/app/sync/sources";
import type { CalendarProvider } from "#lib/calendar/providers/provider";
import { ManualClock } from "#lib/core/clock";
import { pollPhasesEndedBy, pollVisitOf } from "#lib/core/poll";
import { silentLog } from "#lib/core/ports";
import type { SourcePush, SourceRecord, UserRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { pollPhase } from "#lib/store/items/user";
import { MemoryStore } from "#lib/store/memory-store";

/**
 * The poll's choice, restated: the poll visits each user every 15 minutes. An ICS source is
 * checked at every visit. A connected source is checked (and then read) at every visit while it
 * has no working channel: none, an expired one, one that went silent, one whose renewals failed
 * 3 times in a row, or one whose upkeep is overdue (past the middle of the span from its renewal
 * at 80% to its expiry). While its channel lives, it is checked at one visit in 24, the same
 * one every 6 hours, and never while its account must be connected again. A check that runs
 * reads the user once.
 */
const MIN = 60_000;
const H = 60 * MIN;
/** A Monday 09:00 UTC. */
const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const KEY: UserKey = { team: "TPOLL", user: "U1" };

/** A channel created an hour ago, living 7 days: renewed at 80% (day 5.6), no failure. */
const live = (over: Partial<SourcePush> = {}): SourcePush => ({
  channelId: "c1",
  createdAt: T0 - H,
  expiresAt: T0 - H + 7 * 24 * H,
  ...over,
});
const ics = (id = "feed"): SourceRecord => ({ id, kind: "ics", url: `https://cal.example/${id}` });
const connected = (id: string, over: Partial<SourceRecord> = {}): SourceRecord => ({
  id,
  kind: "google",
  refreshTokenSealed: "sealed-refresh",
  cursor: "sync-1",
  ...over,
});

/** Visits in a row: at which of `count` consecutive visits from `first` the source is checked. */
const checkedVisits = (source: SourceRecord, key: UserKey, first: number, count: number) =>
  Array.from({ length: count }, (_, i) => first + i).filter((v) => pollChecks(source, key, v, T0));

describe("pollVisitOf: a user's visits are numbered one after another", () => {
  it("runs every 5 minutes, some seconds late, give each user's 15-minute visits consecutive numbers", () => {
    for (const user of ["U1", "U2", "UXYZ", "W0042"]) {
      const phase = pollPhase({ team: "T1", user });
      const visits: number[] = [];
      // Two days of runs on the five, each 0 to 59 s late.
      for (let run = 0; run < 2 * 24 * 12; run++) {
        const at = T0 + run * 5 * MIN + ((run * 7919) % 60) * 1000;
        const { from, to } = pollPhasesEndedBy(at);
        if (phase >= from && phase < to) visits.push(pollVisitOf(at));
      }
      expect(visits).toHaveLength(2 * 24 * 4);
      for (let i = 1; i < visits.length; i++) expect(visits[i]).toBe((visits[i - 1] ?? 0) + 1);
    }
  });
});

describe("pollChecks: which visits send a check", () => {
  const first = 1_000_003;
  it.each([
    ["an ICS source: every visit", ics(), 24],
    ["connected, no channel yet: every visit", connected("g"), 24],
    [
      "connected, channel expired: every visit",
      connected("g", { push: live({ expiresAt: T0 }) }),
      24,
    ],
    [
      "connected, channel went silent (changes no push announced): every visit",
      connected("g", { push: live({ silentSince: T0 - MIN }) }),
      24,
    ],
    [
      "connected, 3 renewals failed in a row: every visit",
      connected("g", { push: live({ failures: 3 }) }),
      24,
    ],
    [
      "connected, upkeep overdue (a 10 h channel at 9.5 h: renewal at 8 h, expiry at 10 h)",
      connected("g", { push: live({ createdAt: T0 - 9.5 * H, expiresAt: T0 + 0.5 * H }) }),
      24,
    ],
    [
      "connected, channel live, 2 renewals failed: one visit in 24",
      connected("g", { push: live({ failures: 2 }) }),
      1,
    ],
    ["connected, channel live: one visit in 24", connected("g", { push: live() }), 1],
    [
      "connected, account to connect again: never",
      connected("g", { reconnectSince: T0 - H, push: live() }),
      0,
    ],
    [
      "connected, account to connect again, no channel: never",
      connected("g", { reconnectSince: T0 - H }),
      0,
    ],
  ] as const)("%s", (_name, source, checks) => {
    expect(checkedVisits(source, KEY, first, 24)).toHaveLength(checks);
  });

  it("over random sources with a live channel: exactly every 24th visit, spread over the 6 hours", () => {
    let seed = 11;
    const next = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    const positions = new Set<number>();
    for (let i = 0; i < 400; i++) {
      const key = { team: `T${Math.floor(next() * 1e6)}`, user: `U${Math.floor(next() * 1e6)}` };
      const source = connected(`s${Math.floor(next() * 1e4)}`, { push: live() });
      const firstVisit = Math.floor(next() * 1e7);
      const visits = checkedVisits(source, key, firstVisit, 24 * 5);
      // Once in each 6 hours (24 visits of 15 minutes), always the same one of them.
      expect(visits).toHaveLength(5);
      for (let k = 1; k < visits.length; k++) expect(visits[k]).toBe((visits[k - 1] ?? 0) + 24);
      positions.add((visits[0] ?? 0) - firstVisit);
    }
    // Many sources do not all read at the same visit: every one of the 24 is someone's.
    expect(positions.size).toBe(24);
  });
});

const userWith = (sources: SourceRecord[]): UserRecord => ({
  key: KEY,
  tz: "Europe/Berlin",
  tokenSealed: "sealed-token",
  emails: ["u1@example.com"],
  sources,
  rules: {},
  mode: "auto",
  version: 0,
  updatedAt: T0,
});

/** A store that counts reads of user profiles. */
class CountingStore extends MemoryStore {
  userReads = 0;
  override async getUser(key: UserKey) {
    this.userReads++;
    return super.getUser(key);
  }
}

const contextOf = (store: MemoryStore, clock: ManualClock) =>
  ({
    store,
    clock,
    log: silentLog,
    tokens: new LocalTokenVault(Buffer.alloc(32, 7)),
  }) as unknown as UseCaseContext;

describe("the poll over six hours (sourcesDue)", () => {
  it("checks the ICS and channel-less sources 24 times, the live channel's once, the one to reconnect never", async () => {
    const store = new MemoryStore();
    const clock = new ManualClock(T0);
    await store.putUser(
      userWith([
        ics("feed"),
        connected("live", { push: live() }),
        connected("lapsed", { push: live({ expiresAt: T0 - MIN }) }),
        connected("none"),
        connected("reconnect", { reconnectSince: T0 - H, push: live() }),
      ]),
      undefined,
    );
    const checks = new Map<string, number>();
    // Six hours of runs every 5 minutes; each finds the user one run in three.
    for (let run = 0; run < 6 * 12; run++) {
      const due = await sourcesDue(contextOf(store, clock), T0 + run * 5 * MIN + 2_000);
      for (const m of due) checks.set(m.sourceId, (checks.get(m.sourceId) ?? 0) + 1);
    }
    expect(Object.fromEntries(checks)).toEqual({ feed: 24, live: 1, lapsed: 24, none: 24 });
  });
});

describe("a poll check of a connected source", () => {
  const read = async (source: SourceRecord) => {
    const store = new CountingStore();
    const clock = new ManualClock(T0);
    await store.putUser(userWith([source]), undefined);
    const ctx = contextOf(store, clock);
    const sent: SyncMessage[] = [];
    const access = {
      apiDeps: () => ({}),
      flagReconnect: async () => {},
      remember: () => {},
    } as unknown as ConnectAccess;
    const connectedSync = createConnectedSync(ctx, access, {
      syncQueue: { send: async (m: SyncMessage) => void sent.push(m) },
    });
    const apiReads: string[] = [];
    const provider = {
      kind: "google",
      readApi: async (s: { cursor?: string }) => {
        apiReads.push(s.cursor ?? "");
        return { fetch: { kind: "unchanged", reason: "same_content", validators: {} } };
      },
    } as unknown as CalendarProvider;
    const msg: SyncMessage = { ...KEY, sourceId: source.id, reason: "poll" };
    // As the sync runs it: the source loaded (one read of the user), then the API read.
    const view = await loadSource(ctx, KEY, source.id);
    if (view === undefined) throw new Error("source not loaded");
    const outcome = await readConnectedSource(connectedSync, provider, KEY, msg, view, {
      window: { from: T0 - 24 * H, to: T0 + 14 * 24 * H },
      refresh: false,
    });
    return { outcome, userReads: store.userReads, apiReads, sent };
  };

  it("reads the user once, and the calendar from the stored cursor", async () => {
    const r = await read(connected("g", { push: live() }));
    expect(r.userReads).toBe(1);
    expect(r.apiReads).toEqual(["sync-1"]);
    expect(r.sent).toEqual([]);
  });

  it("whose upkeep is overdue asks the repair at once, and reads", async () => {
    const r = await read(
      connected("g", { push: live({ createdAt: T0 - 9.5 * H, expiresAt: T0 + 0.5 * H }) }),
    );
    expect(r.userReads).toBe(1);
    expect(r.apiReads).toEqual(["sync-1"]);
    expect(r.sent).toEqual([{ ...KEY, sourceId: "g", reason: "upkeep", upkeep: { repair: true } }]);
  });

  it("whose account must be connected again reads nothing", async () => {
    const r = await read(connected("g", { reconnectSince: T0 - H }));
    expect(r.outcome).toBe("skip");
    expect(r.apiReads).toEqual([]);
    expect(r.userReads).toBe(1);
  });
});
