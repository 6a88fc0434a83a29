import { performance } from "node:perf_hooks";
import type { CallRecord } from "#emulator/server";
import { type DemoEvent, renderIcs } from "#lib/local/demo-feed";
import { type BenchUser, startBenchStack } from "./support/stack";
import { formatTable, quantile, round } from "./support/stats";
import { benchTokenOf, benchUserId } from "./support/workspace";

/*
 * Calls per block for each `standing` mode, and how late the restores land. Each user has two
 * meetings (09:00–09:30, 10:00–10:30); in restore mode each set a status of their own with no
 * expiry at 08:55, through the service with their own token, as a person does. The local stack
 * runs on a simulated clock with the emulator's rate limits on, and every call is read from the
 * emulator's log: a block's set carries an expiration, a restore sets the person's status back
 * with none. Lateness: the emulator's time of the restore minus the block's end.
 */

const MINUTE = 60_000;
const DAY = Date.parse("2026-03-02T08:50:00Z");
const PERSON_SETS_AT = DAY + 5 * MINUTE;
const MEETINGS = [
  { start: DAY + 10 * MINUTE, end: DAY + 40 * MINUTE },
  { start: DAY + 70 * MINUTE, end: DAY + 100 * MINUTE },
];
const OWN_STATUS = { status_text: "Working remotely", status_emoji: ":house_with_garden:" };

export type StandingMode = "keep" | "restore";

export interface StandingModeResult {
  mode: StandingMode;
  users: number;
  blocks: number;
  /** Sets of a block's status, restores, and profile reads, each per block. */
  setsPerBlock: number;
  restoresPerBlock: number;
  readsPerBlock: number;
  /** Seconds from a block's end to its restore landing (restore mode). */
  restoreLatenessP50S: number | null;
  restoreLatenessP99S: number | null;
  restoreLatenessMaxS: number | null;
  /**
   * End to end: that plus the real time from the instant's tasks starting to the emulator
   * recording the restore (handlers, DynamoDB and HTTP on this machine, as the herd's).
   */
  restoreEndToEndP99S: number | null;
  /** Users whose profile shows their own status again after the last block. */
  restoredUsers: number;
}

function userOf(i: number, mode: StandingMode): BenchUser {
  const user = benchUserId(i);
  const events: DemoEvent[] = MEETINGS.map((m, k) => ({
    uid: `meeting-${k}-${user}@bench`,
    summary: "Design review",
    start: m.start,
    end: m.end,
    busyStatus: "BUSY",
  }));
  return { user, tz: "UTC", ics: renderIcs(events, DAY), rules: { standing: mode } };
}

/** The person sets their own status with no expiry, with their own token. */
async function personSets(apiBase: string, user: string): Promise<void> {
  const response = await fetch(`${apiBase}/users.profile.set`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${benchTokenOf(user)}`,
      "content-type": "application/json; charset=utf-8",
    },
    body: JSON.stringify({ profile: { ...OWN_STATUS, status_expiration: 0 } }),
  });
  const body = (await response.json()) as { ok: boolean; error?: string };
  if (!body.ok) throw new Error(`the person's own set failed: ${body.error}`);
}

const profileOf = (c: CallRecord): Record<string, unknown> => {
  const raw = c.params?.profile;
  return (typeof raw === "string" ? JSON.parse(raw) : (raw ?? {})) as Record<string, unknown>;
};

export async function runStandingMode(
  users: number,
  mode: StandingMode,
): Promise<StandingModeResult> {
  const benchUsers = Array.from({ length: users }, (_, i) => userOf(i, mode));
  // Real time at which each simulated instant started, and at which each call was recorded.
  const instantStartedAt = new Map<number, number>();
  const recordedAt = new Map<number, number>();
  const bench = await startBenchStack({
    start: DAY + 400,
    users: benchUsers,
    onInstant: (at) => {
      if (!instantStartedAt.has(at)) instantStartedAt.set(at, performance.now());
    },
    onServiceCall: (call) => recordedAt.set(call.seq, performance.now()),
  });
  try {
    await bench.advanceTo(PERSON_SETS_AT);
    if (mode === "restore") {
      for (const u of benchUsers) await personSets(bench.emulator.apiBase, u.user);
    }
    await bench.settle();
    const ownSeqs = new Set(bench.emulator.calls().map((c) => c.seq));
    bench.resetMeters();
    const lastEnd = Math.max(...MEETINGS.map((m) => m.end));
    for (let at = PERSON_SETS_AT + MINUTE; at <= lastEnd + 5 * MINUTE; at += MINUTE) {
      await bench.advanceTo(at);
    }
    const calls = bench.meters().serviceCalls.filter((c) => !ownSeqs.has(c.seq));
    const sets = calls.filter((c) => c.method === "users.profile.set" && c.outcome === "ok");
    const blockSets = sets.filter((c) => Number(profileOf(c).status_expiration ?? 0) > 0);
    const restores = sets.filter((c) => profileOf(c).status_text === OWN_STATUS.status_text);
    const reads = calls.filter((c) => c.method === "users.profile.get");
    const endOf = (c: CallRecord) =>
      Math.max(...MEETINGS.map((m) => m.end).filter((e) => e <= c.at));
    const lateness = restores.map((c) => (c.at - endOf(c)) / 1000);
    const endToEnd = restores.map((c) => {
      const real = (recordedAt.get(c.seq) ?? 0) - (instantStartedAt.get(c.at) ?? 0);
      return (c.at - endOf(c) + real) / 1000;
    });
    const profiles = bench.emulator.state().profiles;
    const blocks = users * MEETINGS.length;
    return {
      mode,
      users,
      blocks,
      setsPerBlock: round(blockSets.length / blocks, 3),
      restoresPerBlock: round(restores.length / blocks, 3),
      readsPerBlock: round(reads.length / blocks, 3),
      ...latenessOf(lateness),
      restoreEndToEndP99S: endToEnd.length === 0 ? null : round(quantile(endToEnd, 0.99), 3),
      restoredUsers: benchUsers.filter(
        (u) => profiles[u.user]?.status_text === OWN_STATUS.status_text,
      ).length,
    };
  } finally {
    await bench.close();
  }
}

function latenessOf(seconds: number[]) {
  const none = seconds.length === 0;
  const of = (x: number) => (none ? null : round(x, 3));
  return {
    restoreLatenessP50S: of(quantile(seconds, 0.5)),
    restoreLatenessP99S: of(quantile(seconds, 0.99)),
    restoreLatenessMaxS: of(Math.max(...seconds)),
  };
}

export async function runStandingBench(users: number): Promise<StandingModeResult[]> {
  return [await runStandingMode(users, "keep"), await runStandingMode(users, "restore")];
}

export function standingTable(results: StandingModeResult[]): string {
  return formatTable(
    "standing: calls per block (two 30-minute meetings per user; restore: each person set a status of their own first)",
    [
      "mode",
      "users",
      "sets/block",
      "restores/block",
      "reads/block",
      "restore lateness p50/p99/max",
      "end to end p99",
      "restored",
    ],
    results.map((r) => [
      r.mode,
      String(r.users),
      String(r.setsPerBlock),
      String(r.restoresPerBlock),
      String(r.readsPerBlock),
      r.mode === "restore"
        ? `${r.restoreLatenessP50S} / ${r.restoreLatenessP99S} / ${r.restoreLatenessMaxS} s`
        : "-",
      r.restoreEndToEndP99S === null ? "-" : `${r.restoreEndToEndP99S} s`,
      r.mode === "restore" ? `${r.restoredUsers}/${r.users}` : "-",
    ]),
  );
}
