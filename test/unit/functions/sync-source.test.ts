import { readFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KnownSource, SyncMessage, TimelineMeta } from "#lib/app/contracts";
import {
  DEFAULT_SYNC_LIMITS,
  inRefreshWindow,
  type SourceSyncRecord,
  type SyncDeps,
  SyncError,
  type SyncSourceView,
  syncSource,
} from "#lib/app/sync/sync";
import { expand } from "#lib/calendar/expand";
import { ManualClock } from "#lib/core/clock";
import { silentLog } from "#lib/core/ports";
import { DEFAULT_RULES, userRulesSchema } from "#lib/core/rules";
import { buildTimeline } from "#lib/core/timeline";
import type { Block } from "#lib/core/types";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ics = readFileSync(path.join(repoRoot, "test/fixtures/events/team.ics"), "utf8");
const NOW = Date.UTC(2026, 0, 1, 12, 0);
const msg = { team: "T0DEMO", user: "U001", sourceId: "office", reason: "push" } as const;

let server: Server;
let base = "";
const routes: Record<string, (res: ServerResponse, ifNoneMatch?: string) => void> = {
  "/team.ics": (res, inm) =>
    inm === '"v1"'
      ? res.writeHead(304).end()
      : res
          .writeHead(200, { etag: '"v1"', "last-modified": "Wed, 31 Dec 2025 10:00:00 GMT" })
          .end(ics),
  "/huge.ics": (res) => {
    // No content-length: the cap must hold while streaming.
    res.writeHead(200, { "content-type": "text/calendar" });
    const chunk = "X".repeat(64 * 1024);
    let sent = 0;
    const pump = () => {
      while (sent < 40 && res.write(chunk)) sent++;
      if (sent >= 40) res.end();
      else res.once("drain", pump);
    };
    pump();
  },
  "/gone.ics": (res) => res.writeHead(410).end(),
  "/slow.ics": () => undefined,
};

/** Our own ports, in memory: the applied timelines and recorded syncs. */
function harness(source: Partial<SyncSourceView> & { url: string }, limits = {}) {
  const applied: Array<{ blocks: Block[]; meta: TimelineMeta }> = [];
  const records: SourceSyncRecord[] = [];
  const clock = new ManualClock(NOW);
  const deps = {
    clock,
    log: silentLog,
    fetch,
    loadSource: async () => {
      const { url, ...view } = source;
      return {
        tz: "Europe/Berlin",
        emails: [],
        rules: DEFAULT_RULES,
        ...view,
        openUrl: async () => url,
      };
    },
    recordSourceSync: async (_k: unknown, _s: string, r: SourceSyncRecord) => void records.push(r),
    applyTimeline: async (_k: unknown, blocks: Block[], meta: TimelineMeta) =>
      void applied.push({ blocks, meta }),
    expand,
    buildTimeline,
    limits,
  };
  return { deps, applied, records, clock };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const route = routes[req.url ?? ""];
    if (route) route(res, req.headers["if-none-match"]);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
});

describe("syncSource", () => {
  it("expands the feed for the horizon and applies its timeline with the ETag and a hash", async () => {
    // Prepare
    const h = harness({ url: `${base}/team.ics` });
    // Act
    const outcome = await syncSource(h.deps, msg);
    // Assess
    expect(outcome).toEqual({ kind: "applied", blocks: 1, skipped: 0 });
    expect(h.applied[0]?.blocks[0]).toMatchObject({
      start: Date.UTC(2026, 0, 1, 13, 0),
      end: Date.UTC(2026, 0, 1, 13, 30),
      kind: "meeting",
    });
    expect(h.applied[0]?.meta).toMatchObject({ sourceId: "office", etag: '"v1"' });
    expect(h.records[0]).toMatchObject({
      syncedAt: NOW,
      etag: '"v1"',
      lastModified: expect.any(String),
      // The feed names no calendar: its host and file name.
      name: "127.0.0.1 team.ics",
    });
  });

  it("classifies with the source's id, so the rules' calendar conditions apply", async () => {
    // Prepare: the same feed, its source skipped by one person, matched by another's status
    const skipping = harness({
      url: `${base}/team.ics`,
      rules: userRulesSchema.parse({ skipCalendars: ["office"] }),
    });
    const matching = harness({
      url: `${base}/team.ics`,
      rules: userRulesSchema.parse({
        custom: [
          { name: "Work", text: "At work", emoji: ":office:", priority: 12, calendars: ["office"] },
        ],
      }),
    });
    // Act
    await syncSource(skipping.deps, msg);
    await syncSource(matching.deps, msg);
    // Assess
    expect(skipping.applied[0]?.blocks).toEqual([]);
    expect(matching.applied[0]?.blocks[0]).toMatchObject({
      kind: "custom",
      name: "Work",
      priority: 12,
    });
  });

  it("reads a push-backed source (Google, Graph, generic) through its ICS address for now", async () => {
    for (const kind of ["google", "graph", "generic"] as const) {
      const h = harness({ kind, url: `${base}/team.ics` });
      expect(await syncSource(h.deps, msg), kind).toEqual({
        kind: "applied",
        blocks: 1,
        skipped: 0,
      });
    }
  });

  it("skips a source whose kind no provider reads, without fetching or writing", async () => {
    // Prepare: a kind stored by a newer release, before this one knows its provider
    let fetched = 0;
    const h = harness({ kind: "caldav" as never, url: `${base}/team.ics` });
    h.deps.fetch = async (...args: Parameters<typeof fetch>) => {
      fetched++;
      return fetch(...args);
    };
    // Act
    const outcome = await syncSource(h.deps, msg);
    // Assess: a retry cannot help, so it is a skip, not a SyncError
    expect(outcome).toEqual({ kind: "skipped", reason: "unknown_kind" });
    expect(fetched).toBe(0);
    expect(h.applied).toEqual([]);
    expect(h.records).toEqual([]);
  });

  it("writes nothing when the server answers 304 to a recent sync's ETag", async () => {
    const h = harness({ url: `${base}/team.ics`, etag: '"v1"', syncedAt: NOW - 60_000 });
    expect(await syncSource(h.deps, msg)).toEqual({ kind: "unchanged", reason: "not_modified" });
    expect(h.applied).toEqual([]);
  });

  it("writes nothing when the feed answers 304 with the validators it had", async () => {
    // Prepare
    const h = harness({
      url: `${base}/team.ics`,
      etag: '"v1"',
      hash: "abc",
      lastModified: "Wed, 31 Dec 2025 10:00:00 GMT",
      syncedAt: NOW - 60_000,
    });
    // Act
    const outcome = await syncSource(h.deps, msg);
    // Assess: the poll finds the source by its fixed phase, so an unchanged check moves nothing
    expect(outcome).toEqual({ kind: "unchanged", reason: "not_modified" });
    expect(h.records).toEqual([]);
  });

  it("writes nothing when the content hash is unchanged since a recent sync", async () => {
    const first = harness({ url: `${base}/team.ics` });
    await syncSource(first.deps, msg);
    const hash = first.records[0]?.hash;
    const h = harness({ url: `${base}/team.ics`, hash, syncedAt: NOW - 60_000 });
    expect(await syncSource(h.deps, msg)).toEqual({ kind: "unchanged", reason: "same_content" });
    expect(h.applied).toEqual([]);
    expect(h.records).toEqual([expect.objectContaining({ syncedAt: NOW, hash })]);
  });

  it("re-expands an unchanged feed checked every 15 minutes once a day, whatever its id", () => {
    const refreshMs = DEFAULT_SYNC_LIMITS.refreshMs;
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 2_000_000_000_000 }),
        (sourceId, start) => {
          // Prepare
          const source = { ...msg, sourceId };
          let last: number | undefined = start;
          let refreshes = 0;
          // Act: 96 checks after the first, 15 minutes apart; only a full read records its time
          for (let k = 1; k <= 96; k++) {
            const now = start + k * 15 * 60_000;
            if (!inRefreshWindow(source, last, now, refreshMs)) {
              refreshes++;
              last = now;
            }
          }
          // Assess: the refresh window is a day
          expect(refreshes).toBe(1);
        },
      ),
    );
  });

  it("re-expands an unchanged feed once the last sync is a day old, as the horizon slides", async () => {
    const h = harness({ url: `${base}/team.ics`, etag: '"v1"', syncedAt: NOW - 25 * 3_600_000 });
    expect((await syncSource(h.deps, msg)).kind).toBe("applied");
  });

  it("reads the calendar in full on a manual sync, even one unchanged since a recent check", async () => {
    // Prepare: new rules or a resume queue a manual sync of a calendar checked a minute ago
    const h = harness({ url: `${base}/team.ics`, etag: '"v1"', syncedAt: NOW - 60_000 });
    // Act
    const outcome = await syncSource(h.deps, { ...msg, reason: "manual" });
    // Assess
    expect(outcome).toEqual({ kind: "applied", blocks: 1, skipped: 0 });
  });

  it("coalesces a push that a later sync already covered", async () => {
    const h = harness({ url: `${base}/team.ics`, syncedAt: NOW - 1000 });
    expect(await syncSource(h.deps, msg, NOW - 5000)).toEqual({
      kind: "unchanged",
      reason: "already_synced",
    });
  });

  it("skips a feed over the size cap with a reason, aborting the download", async () => {
    const h = harness({ url: `${base}/huge.ics` }, { maxBytes: 256 * 1024 });
    expect(await syncSource(h.deps, msg)).toEqual({ kind: "skipped", reason: "too_large" });
    expect(h.applied).toEqual([]);
  });

  it("skips a feed that is gone, and fails retryably on a timeout", async () => {
    const gone = harness({ url: `${base}/gone.ics` });
    expect(await syncSource(gone.deps, msg)).toEqual({ kind: "skipped", reason: "http_410" });
    const slow = harness({ url: `${base}/slow.ics` }, { timeoutMs: 100 });
    await expect(syncSource(slow.deps, msg)).rejects.toMatchObject({
      name: "SyncError",
      code: "timeout",
    });
    await expect(syncSource(slow.deps, msg)).rejects.toBeInstanceOf(SyncError);
  });
});

describe("syncSource with what the poll read of the source (`known`)", () => {
  /** The harness, counting the store reads the sync makes. */
  function counted(source: Partial<SyncSourceView> & { url: string }) {
    const h = harness(source);
    let loads = 0;
    const load = h.deps.loadSource;
    h.deps.loadSource = async () => {
      loads++;
      return load();
    };
    return { ...h, loads: () => loads };
  }
  const poll = (known: NonNullable<SyncMessage["known"]>): SyncMessage => ({
    ...msg,
    reason: "poll",
    known,
  });

  it("checks an unchanged feed without reading or writing the store", async () => {
    // Prepare: the last full read 10 minutes ago, in this refresh window
    const h = counted({ url: `${base}/team.ics`, etag: '"v1"', syncedAt: NOW - 600_000 });
    const known: KnownSource = {
      kind: "ics",
      url: `${base}/team.ics`,
      etag: '"v1"',
      syncedAt: NOW - 600_000,
    };
    // Act
    const outcome = await syncSource(h.deps, poll(known));
    // Assess
    expect(outcome).toEqual({ kind: "unchanged", reason: "not_modified" });
    expect(h.loads()).toBe(0);
    expect(h.records).toEqual([]);
    expect(h.applied).toEqual([]);
  });

  it("reads the owner once when the feed changed, and expands it in the owner's zone", async () => {
    // Prepare: the poll knew an older version (another ETag); the owner lives in Berlin
    const h = counted({ url: `${base}/team.ics`, tz: "Europe/Berlin" });
    const known: KnownSource = {
      kind: "ics",
      url: `${base}/team.ics`,
      etag: '"v0"',
      syncedAt: NOW - 600_000,
    };
    const plain = harness({ url: `${base}/team.ics`, tz: "Europe/Berlin" });
    // Act
    const outcome = await syncSource(h.deps, poll(known));
    await syncSource(plain.deps, msg);
    // Assess: the same timeline as a sync that read the source first
    expect(outcome).toEqual({ kind: "applied", blocks: 1, skipped: 0 });
    expect(h.loads()).toBe(1);
    expect(h.applied.map((a) => a.blocks)).toEqual(plain.applied.map((a) => a.blocks));
    expect(h.records[0]).toMatchObject({ syncedAt: NOW, etag: '"v1"' });
  });

  it("reads the source first outside the refresh window, and expands the feed in full", async () => {
    // Prepare: the last full read 25 hours ago
    const h = counted({ url: `${base}/team.ics`, etag: '"v1"', syncedAt: NOW - 25 * 3_600_000 });
    const known: KnownSource = {
      kind: "ics",
      url: `${base}/team.ics`,
      etag: '"v1"',
      syncedAt: NOW - 25 * 3_600_000,
    };
    // Act
    const outcome = await syncSource(h.deps, poll(known));
    // Assess
    expect(outcome.kind).toBe("applied");
    expect(h.loads()).toBe(1);
  });

  it("skips a changed feed whose source went away since the poll", async () => {
    // Prepare
    const h = counted({ url: `${base}/team.ics` });
    const gone: SyncDeps = { ...h.deps, loadSource: async () => undefined };
    const known: KnownSource = {
      kind: "ics",
      url: `${base}/team.ics`,
      etag: '"v0"',
      syncedAt: NOW - 600_000,
    };
    // Act
    const outcome = await syncSource(gone, poll(known));
    // Assess
    expect(outcome).toEqual({ kind: "skipped", reason: "unknown_source" });
    expect(h.applied).toEqual([]);
    expect(h.records).toEqual([]);
  });

  it("fetches the address the poll carried sealed through openAddress", async () => {
    // Prepare: the sealed address is a stand-in that only openAddress turns into the feed's
    const h = counted({ url: "stored:team" });
    const opened: string[] = [];
    const deps = {
      ...h.deps,
      openAddress: async (stored: KnownSource) => {
        opened.push(stored.urlSealed ?? "(none)");
        return `${base}/team.ics`;
      },
    };
    const known: KnownSource = {
      kind: "ics",
      urlSealed: "stored:team",
      etag: '"v1"',
      syncedAt: NOW - 600_000,
    };
    // Act
    const outcome = await syncSource(deps, poll(known));
    // Assess
    expect(outcome).toEqual({ kind: "unchanged", reason: "not_modified" });
    expect(opened).toEqual(["stored:team"]);
  });
});
