import { createUseCases, type UseCaseOptions, type UseCases } from "#lib/app/compose/use-cases";
import type { TransitionMessage, UpsertUserInput } from "#lib/app/contracts";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { ManualClock } from "#lib/core/clock";
import type { Queue, QueueEntry, SendOptions } from "#lib/core/ports";
import { GatewayError, type StatusGateway, type StatusTarget, silentLog } from "#lib/core/ports";
import {
  type Block,
  EMPTY_STATUS,
  type StatusKind,
  type StatusValue,
  type UserKey,
} from "#lib/core/types";
import { DynamoStore } from "#lib/store/dynamo-store";
import type { LocalDynamo } from "../../support/dynalite";

/**
 * A fake of our own StatusGateway port: one profile per user, which our writes change and the
 * tests change as the user would (`userSets`); records every write and read, fails on demand.
 */
export class RecordingGateway implements StatusGateway {
  calls: Array<{ target: StatusTarget; status: StatusValue }> = [];
  reads: StatusTarget[] = [];
  failures: GatewayError[] = [];
  /** Failures thrown after the write was applied (a timeout whose request went through). */
  failuresAfterApplying: GatewayError[] = [];
  readFailures: GatewayError[] = [];
  /** Milliseconds each call takes, so concurrent reconciles overlap. */
  latencyMs = 0;
  /** Holds the next set in flight: `begun` once it is sent, and it lands at `until`. */
  hold: { begun: () => void; until: Promise<void> } | undefined;
  private readonly profiles = new Map<string, StatusValue>();

  /** What the user's profile shows now. */
  shown(key: UserKey): StatusValue {
    return this.profiles.get(`${key.team}#${key.user}`) ?? { ...EMPTY_STATUS };
  }

  /** The user changes their own status (no event reaches us unless the test sends one). */
  userSets(key: UserKey, status: StatusValue): void {
    this.profiles.set(`${key.team}#${key.user}`, status);
  }

  async setStatus(target: StatusTarget, status: StatusValue): Promise<{ actual: StatusValue }> {
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    const held = this.hold;
    this.hold = undefined;
    held?.begun();
    await held?.until;
    const failure = this.failures.shift();
    if (failure) throw failure;
    this.calls.push({ target, status });
    this.userSets(target.key, status);
    const late = this.failuresAfterApplying.shift();
    if (late) throw late;
    return { actual: status };
  }

  async readStatus(target: StatusTarget): Promise<{ actual: StatusValue }> {
    const failure = this.readFailures.shift();
    if (failure) throw failure;
    this.reads.push(target);
    return { actual: this.shown(target.key) };
  }

  static failure(
    code: string,
    kind: { retryable?: boolean; final?: boolean; retryAfterS?: number },
  ): GatewayError {
    return new GatewayError(
      `failed: ${code}`,
      code,
      kind.retryable ?? false,
      kind.final ?? false,
      kind.retryAfterS,
    );
  }
}

/** A fake of our own Queue port that keeps what was sent, and how many requests it took. */
export class MemoryQueue implements Queue<TransitionMessage> {
  sent: Array<{ message: TransitionMessage; delaySeconds: number }> = [];
  /** Messages per request, in the order the requests were made (a single send is one). */
  requests: number[] = [];
  async send(message: TransitionMessage, opts?: SendOptions): Promise<void> {
    this.requests.push(1);
    this.sent.push({ message, delaySeconds: opts?.delaySeconds ?? 0 });
  }
  async sendBatch(entries: ReadonlyArray<QueueEntry<TransitionMessage>>): Promise<void> {
    this.requests.push(entries.length);
    for (const e of entries)
      this.sent.push({ message: e.message, delaySeconds: e.delaySeconds ?? 0 });
  }
}

export const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
export const MIN = 60_000;

export function block(start: number, end: number, kind: StatusKind = "meeting"): Block {
  const look = {
    meeting: { text: "In a meeting", emoji: ":spiral_calendar_pad:" },
    focus: { text: "Focus time", emoji: ":headphones:" },
    ooo: { text: "Out of office", emoji: ":palm_tree:" },
  }[kind];
  return { start, end, kind, ...look, expiration: Math.floor(end / 1000) };
}

export interface Harness {
  pilot: UseCases;
  store: DynamoStore;
  gateway: RecordingGateway;
  queue: MemoryQueue;
  clock: ManualClock;
  vault: LocalTokenVault;
  addUser(user: string, extra?: Partial<UpsertUserInput>): Promise<UserKey>;
}

let counter = 0;

export function harness(
  dynamo: LocalDynamo,
  options: Partial<UseCaseOptions> = {},
  decorateReconcile?: Parameters<typeof createUseCases>[1],
): Harness {
  const store = new DynamoStore(dynamo.client, dynamo.tableName);
  const gateway = new RecordingGateway();
  const queue = new MemoryQueue();
  const clock = new ManualClock(T0);
  const vault = new LocalTokenVault(Buffer.alloc(32, 7));
  const pilot = createUseCases(
    {
      store,
      gateway,
      transitionQueue: queue,
      clock,
      log: silentLog,
      tokens: vault,
      newId: () => `ooo-${++counter}`,
      options,
    },
    decorateReconcile,
  );
  const team = `T${++counter}`;
  return {
    pilot,
    store,
    gateway,
    queue,
    clock,
    vault,
    async addUser(user, extra = {}) {
      const key = { team, user };
      await pilot.upsertUser({
        key,
        tz: "Europe/Berlin",
        token: `xoxp-${user}`,
        // The calendar the tests' timelines come from.
        sources: [{ id: "work", url: `https://cal.example/${user}.ics`, kind: "ics" }],
        mode: "auto",
        ...extra,
      });
      return key;
    },
  };
}
