import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { migrateSeals } from "#lib/app/secrets/seal-migration";
import { DynamoSealedRecordKeys, migrateSealsInTable } from "#lib/app/secrets/sealed-items-scan";
import { runWith } from "#lib/cli/migrate-seals";
import { ManualClock } from "#lib/core/clock";
import { type SealOwner, silentLog } from "#lib/core/ports";
import type { UserRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { migrateLocalSeals } from "#lib/local/seal-migration";
import { DynamoStore } from "#lib/store/dynamo-store";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";
import { oldLocalSeal } from "../../support/legacy-seals";

// Issue 11 §2 follow-up, no lost state on upgrade: secrets sealed before owners were bound (the
// old format, made here as the old local vault made it) are sealed again under their owner by
// the migration, calendar addresses in clear are sealed, a second run changes nothing, and a
// value moved onto another user's item stays refused.

const KEY = Buffer.alloc(32, 9);
const vault = new LocalTokenVault(KEY);
const T0 = Date.UTC(2026, 10, 24, 9);
const ADDRESS = "https://calendar.example.com/private/0123456789abcdef/basic.ics";

let dynamo: LocalDynamo;
let store: DynamoStore;
const clock = new ManualClock(T0);

beforeAll(async () => {
  dynamo = await startDynalite();
  store = new DynamoStore(dynamo.client, dynamo.tableName);
}, 30_000);

afterAll(async () => {
  await dynamo.close();
});

const owner = (key: UserKey, field: SealOwner["field"]): SealOwner => ({ ...key, field });

async function putUser(key: UserKey, fields: Partial<UserRecord>): Promise<void> {
  await store.putUser(
    {
      key,
      tz: "Europe/Berlin",
      tokenSealed: "",
      emails: [],
      sources: [],
      rules: {},
      mode: "auto",
      version: 0,
      updatedAt: T0,
      ...fields,
    },
    undefined,
  );
}

const migrate = (options: { dryRun?: boolean } = {}) =>
  migrateSealsInTable({
    client: dynamo.client,
    tableName: dynamo.tableName,
    vault,
    clock,
    log: silentLog,
    ...options,
  });

describe("statuspilot migrate-seals over the table", () => {
  const alice = { team: "TMIG", user: "UALICE" };
  const bob = { team: "TMIG", user: "UBOB" };
  const carol = { team: "TMIG", user: "UCAROL" };

  it("seals old-format values and clear addresses to their owner, once", async () => {
    // Prepare: Alice from before (old-format tokens and secrets, an address in clear, a channel),
    // Bob holding a value sealed to Alice, Carol already sealed to herself
    await putUser(alice, {
      tokenSealed: oldLocalSeal(KEY, "xoxp-alice"),
      refreshTokenSealed: oldLocalSeal(KEY, "xoxe-alice"),
      sources: [
        { id: "cal1", kind: "ics", url: ADDRESS, secretSealed: oldLocalSeal(KEY, "hook-secret") },
      ],
    });
    await store.putChannel(
      {
        channelId: "ch-migrate-1",
        key: alice,
        sourceId: "cal1",
        secretSealed: oldLocalSeal(KEY, "channel-secret"),
        kind: "generic",
        version: 0,
      },
      undefined,
    );
    const movedFromAlice = await vault.seal("xoxp-alice-2", owner(alice, "access_token"));
    await putUser(bob, { tokenSealed: movedFromAlice });
    await putUser(carol, {
      tokenSealed: await vault.seal("xoxp-carol", owner(carol, "access_token")),
    });
    // A dry run counts and writes nothing
    const dry = await migrate({ dryRun: true });
    expect(dry).toMatchObject({ resealed: 4, addressesSealed: 1, legacyLeft: 5 });
    expect((await store.getUser(alice))?.version).toBe(1);

    // Act
    const report = await migrate();

    // Assess: what it did
    expect(report).toMatchObject({
      users: 3,
      channels: 1,
      resealed: 4,
      addressesSealed: 1,
      alreadyBound: 1,
      conflicts: 0,
      legacyLeft: 0,
    });
    expect(report.refused).toEqual([{ item: "user TMIG/UBOB", field: "access_token" }]);
    // Alice's values now open only as sealed to her, each under its own field
    const a = await store.getUser(alice);
    expect(a?.version).toBe(2);
    expect(a?.updatedAt).toBe(T0);
    expect(await vault.read(a?.tokenSealed ?? "", owner(alice, "access_token"))).toEqual({
      kind: "bound",
      plain: "xoxp-alice",
    });
    expect(await vault.read(a?.refreshTokenSealed ?? "", owner(alice, "refresh_token"))).toEqual({
      kind: "bound",
      plain: "xoxe-alice",
    });
    const source = a?.sources[0];
    expect(source?.url).toBeUndefined();
    // Scheme, host and the last 4 characters of the longest path segment
    expect(source?.urlShown).toBe("https://calendar.example.com/…cdef");
    expect(await vault.open(source?.urlSealed ?? "", owner(alice, "source_url"))).toBe(ADDRESS);
    expect(await vault.read(source?.secretSealed ?? "", owner(alice, "source_secret"))).toEqual({
      kind: "bound",
      plain: "hook-secret",
    });
    const channel = await store.getChannel("ch-migrate-1");
    expect(await vault.read(channel?.secretSealed ?? "", owner(alice, "channel_secret"))).toEqual({
      kind: "bound",
      plain: "channel-secret",
    });
    // Bob's item still holds the value sealed to Alice, which still opens for nobody but her
    const b = await store.getUser(bob);
    expect(b?.tokenSealed).toBe(movedFromAlice);
    await expect(
      vault.open(b?.tokenSealed ?? "", owner(bob, "access_token")),
    ).rejects.toMatchObject({ code: "tampered" });
    // A migrated value copied onto Bob's item does not open for him either
    await expect(
      vault.open(a?.tokenSealed ?? "", owner(bob, "access_token")),
    ).rejects.toMatchObject({ code: "tampered" });

    // A second run changes nothing
    const again = await migrate();
    expect(again).toMatchObject({
      resealed: 0,
      addressesSealed: 0,
      alreadyBound: 5,
      legacyLeft: 0,
    });
    expect((await store.getUser(alice))?.version).toBe(2);
    expect((await store.getChannel("ch-migrate-1"))?.version).toBe(2);
    expect((await store.getUser(carol))?.version).toBe(1);
  });

  it("redoes an item from a fresh read when a concurrent write wins, keeping that write", async () => {
    // Prepare: a user from before, and a writer that changes the item right after the migration read it
    const dave = { team: "TCONC", user: "UDAVE" };
    await putUser(dave, { tokenSealed: oldLocalSeal(KEY, "xoxp-dave") });
    let raced = false;
    const racingStore = {
      getUser: async (key: UserKey) => {
        const read = await store.getUser(key);
        if (read && !raced) {
          raced = true;
          await store.putUser({ ...read, tz: "Asia/Tokyo" }, read.version);
        }
        return read;
      },
      putUser: store.putUser.bind(store),
      getChannel: store.getChannel.bind(store),
      putChannel: store.putChannel.bind(store),
    };
    // Act
    const report = await migrateSeals({
      store: racingStore,
      keys: { list: async () => ({ users: [dave], channels: [] }) },
      vault,
      clock,
      log: silentLog,
    });
    // Assess
    expect(report).toMatchObject({ resealed: 1, conflicts: 1, legacyLeft: 0 });
    const d = await store.getUser(dave);
    expect(d?.tz).toBe("Asia/Tokyo");
    expect(d?.version).toBe(3);
    expect(await vault.read(d?.tokenSealed ?? "", owner(dave, "access_token"))).toEqual({
      kind: "bound",
      plain: "xoxp-dave",
    });
  });

  it("lists every user and channel of the table by key", async () => {
    const { users, channels } = await new DynamoSealedRecordKeys(
      dynamo.client,
      dynamo.tableName,
    ).list();
    expect(users).toEqual(expect.arrayContaining([alice, bob, carol]));
    expect(channels).toContain("ch-migrate-1");
  });
});

describe("the command and the local stack's start", () => {
  it("statuspilot migrate-seals reports, and exits 1 on a dry run while old values are left", async () => {
    // Prepare
    const erin = { team: "TCLI", user: "UERIN" };
    await putUser(erin, { tokenSealed: oldLocalSeal(KEY, "xoxp-erin") });
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t) };
    const deps = { dynamo: freshClient, vault: () => vault, clock };
    const args = ["--stage", "test", "--table", dynamo.tableName];
    // Act / Assess: a dry run finds the value, writes nothing
    expect(await runWith([...args, "--dry-run"], io, deps)).toBe(1);
    expect(out.join("\n")).toMatch(
      /dry run: .*1 sealed again under their owner.*1 legacy values left/,
    );
    out.length = 0;
    expect(await runWith(args, io, deps)).toBe(0);
    expect(out[0]).toMatch(/^\d+ users.* 1 sealed again under their owner.* 0 legacy values left$/);
    // The value moved onto Bob's item is named, never shown
    expect(out.slice(1)).toEqual([
      "  user TMIG/UBOB access_token: opens for its owner in no format, left as it is",
    ]);
    expect(await runWith(["--table", "x"], io, deps)).toBe(64);
  });

  it("the local stack's start migrates its kept state", async () => {
    const frank = { team: "TLOCAL", user: "UFRANK" };
    await putUser(frank, { tokenSealed: oldLocalSeal(KEY, "xoxp-frank") });
    await migrateLocalSeals(dynamo.endpoint, dynamo.tableName, KEY.toString("base64"), {
      log: silentLog,
      clock,
    });
    const f = await store.getUser(frank);
    expect(await vault.read(f?.tokenSealed ?? "", owner(frank, "access_token"))).toEqual({
      kind: "bound",
      plain: "xoxp-frank",
    });
  });
});

/** A client of the test table that the command may destroy. */
const freshClient = () =>
  new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
