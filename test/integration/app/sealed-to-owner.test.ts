import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shownAddress } from "#lib/app/secrets/source-address";
import { type SyncDeps, syncSource } from "#lib/app/sync/sync";
import { expand } from "#lib/calendar/expand";
import { buildTimeline } from "#lib/core/timeline";
import type { UserKey } from "#lib/core/types";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";
import { repoRoot } from "../../support/osls-package";
import { block, type Harness, harness, MIN, T0 } from "./harness";

// Issue 11 §2: secrets are sealed to their owner and field. A sealed value copied onto another
// user's item must not open; calendar addresses are stored only sealed (records from before
// hold them in clear, still work, and are sealed by the next sync).

const ics = readFileSync(path.join(repoRoot, "test/fixtures/events/team.ics"), "utf8");

let dynamo: LocalDynamo;
let h: Harness;

beforeAll(async () => {
  dynamo = await startDynalite();
  h = harness(dynamo);
}, 30_000);

afterAll(async () => {
  await dynamo.close();
});

/** The profile item's `data` as stored in the table. */
async function storedData(key: UserKey): Promise<string> {
  const user = await h.store.getUser(key);
  if (user === undefined) throw new Error("no such user");
  return JSON.stringify(user);
}

/** A sync of one source through the use cases, fetching with a fake that records the address. */
function syncDeps(fetched: string[]): SyncDeps {
  return {
    clock: h.clock,
    log: { debug() {}, info() {}, warn() {}, error() {} },
    fetch: async (input) => {
      fetched.push(String(input));
      return new Response(ics, { status: 200, headers: { "content-type": "text/calendar" } });
    },
    loadSource: (key, sourceId) => h.pilot.loadSource(key, sourceId),
    recordSourceSync: (key, sourceId, record) => h.pilot.recordSourceSync(key, sourceId, record),
    applyTimeline: (key, blocks, meta) => h.pilot.applyTimeline(key, blocks, meta),
    expand: async (...args) => expand(...args),
    buildTimeline,
  };
}

describe("secrets sealed to their owner, through the store and the use cases", () => {
  it("refuses a token copied from one user's item onto another's: no service call with it", async () => {
    // Prepare: two users; Bob's item gets Alice's sealed token
    const alice = await h.addUser("UALICE", { token: "xoxp-alice" });
    const bob = await h.addUser("UBOB", { token: "xoxp-bob" });
    const aliceRecord = await h.store.getUser(alice);
    const bobRecord = await h.store.getUser(bob);
    if (aliceRecord === undefined || bobRecord === undefined) throw new Error("users missing");
    await h.store.putUser(
      { ...bobRecord, tokenSealed: aliceRecord.tokenSealed },
      bobRecord.version,
    );
    const before = h.gateway.calls.length;
    // Act: a meeting now, so a reconcile would set Bob's status with the token on his item
    await h.pilot
      .applyTimeline(bob, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" })
      .catch(() => undefined);
    const retry = (await h.store.loadUser(bob)).status?.state.retry;
    const copied = h.gateway.calls.slice(before).map((c) => c.target.token);
    const refused = await h.vault
      .open(aliceRecord.tokenSealed, { ...bob, field: "access_token" })
      .catch((error: unknown) => error);
    // Bob's own token back: the same reconcile now calls the service (so the above could).
    const now = await h.store.getUser(bob);
    if (now === undefined) throw new Error("user missing");
    await h.store.putUser({ ...now, tokenSealed: bobRecord.tokenSealed }, now.version);
    h.clock.advance(MIN); // past the retry the failed open scheduled
    await h.pilot.reconcileUser(bob);
    // Assess: the copied token did not open as Bob's, so no call carried it
    expect(copied).toEqual([]);
    expect(retry).toBeDefined();
    expect(refused).toMatchObject({ code: "tampered" });
    expect(h.gateway.calls.slice(before).map((c) => c.target.token)).toEqual(["xoxp-bob"]);
  });

  it("refuses a calendar address copied onto another user's source", async () => {
    // Prepare
    const carol = await h.addUser("UCAROL", {
      sources: [
        { id: "work", url: "https://cal.example/carol-secret-0123456789.ics", kind: "ics" },
      ],
    });
    const dave = await h.addUser("UDAVE");
    const carolSource = (await h.store.getUser(carol))?.sources[0];
    const daveRecord = await h.store.getUser(dave);
    if (carolSource === undefined || daveRecord === undefined) throw new Error("users missing");
    await h.store.putUser(
      { ...daveRecord, sources: [{ ...carolSource, id: "work" }] },
      daveRecord.version,
    );
    const fetched: string[] = [];
    // Act
    const synced = await syncSource(syncDeps(fetched), {
      ...dave,
      sourceId: "work",
      reason: "poll",
    }).catch((error: unknown) => error);
    // Assess: nothing was fetched with Carol's address
    expect(synced).toMatchObject({ code: "tampered" });
    expect(fetched).toEqual([]);
    // Carol's own still opens.
    expect(await (await h.pilot.loadSource(carol, "work"))?.openUrl()).toBe(
      "https://cal.example/carol-secret-0123456789.ics",
    );
  });

  it("stores an address only sealed, and compares a resubmitted one without opening it", async () => {
    // Prepare
    const url = "https://cal.example/erin/private-9f8e7d6c5b4a39281706/basic.ics";
    const erin = await h.addUser("UERIN", { sources: [{ id: "work", url, kind: "ics" }] });
    await h.pilot.recordSourceSync(erin, "work", { syncedAt: h.clock.now(), etag: '"v1"' });
    // Act: the same address again keeps the source's validators; a new one drops them
    await h.pilot.upsertUser({
      key: erin,
      tz: "Europe/Berlin",
      token: "xoxp-erin",
      sources: [{ id: "work", url, kind: "ics" }],
      mode: "auto",
    });
    const kept = (await h.store.getUser(erin))?.sources[0];
    await h.pilot.upsertUser({
      key: erin,
      tz: "Europe/Berlin",
      token: "xoxp-erin",
      sources: [{ id: "work", url: `${url}?v=2`, kind: "ics" }],
      mode: "auto",
    });
    const moved = (await h.store.getUser(erin))?.sources[0];
    // Assess
    expect(await storedData(erin)).not.toContain("private-9f8e7d6c5b4a39281706");
    expect(kept).toMatchObject({ etag: '"v1"', urlShown: "https://cal.example/…1706" });
    expect(kept?.url).toBeUndefined();
    expect(moved?.etag).toBeUndefined();
    // The status view (what `statuspilot status` prints) shows it redacted only.
    expect((await h.pilot.getStatusView(erin))?.calendars).toEqual([
      { id: "work", kind: "ics", address: "https://cal.example/…1706" },
    ]);
  });

  it("reads an address stored in clear before sealing, and seals it on the next sync", async () => {
    // Prepare: a record as written before addresses were sealed
    const url = "https://legacy.example/feeds/0a1b2c3d4e5f60718293a4b5/cal.ics";
    const frank = await h.addUser("UFRANK");
    const record = await h.store.getUser(frank);
    if (record === undefined) throw new Error("user missing");
    await h.store.putUser(
      { ...record, sources: [{ id: "old", url, kind: "ics", etag: '"e1"' }] },
      record.version,
    );
    const legacy = (await h.store.getUser(frank))?.sources[0];
    expect(legacy && shownAddress(legacy)).toBe("https://legacy.example/…a4b5");
    const fetched: string[] = [];
    // Act
    const outcome = await syncSource(syncDeps(fetched), {
      ...frank,
      sourceId: "old",
      reason: "poll",
    });
    // Assess: fetched from the old address; the record now holds it only sealed, and it opens
    expect(outcome.kind).toBe("applied");
    expect(fetched).toEqual([url]);
    const stored = (await h.store.getUser(frank))?.sources[0];
    expect(stored?.url).toBeUndefined();
    expect(stored?.urlSealed).toMatch(/^aesgcm:/);
    expect(await storedData(frank)).not.toContain("0a1b2c3d4e5f60718293a4b5");
    expect(await (await h.pilot.loadSource(frank, "old"))?.openUrl()).toBe(url);
    expect(await h.vault.open(stored?.urlSealed ?? "", { ...frank, field: "source_url" })).toBe(
      url,
    );
  });
});
