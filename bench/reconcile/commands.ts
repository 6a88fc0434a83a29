import fc from "fast-check";

/**
 * The commands of a simulated day (bench/reconcile/simulation.ts) and the random days the
 * reconcile properties and `statuspilot bench`'s convergence run draw.
 */

export type Command =
  | { t: "advance"; seconds: number }
  | {
      t: "timeline";
      blocks: { startMin: number; lengthMin: number; kind: 0 | 1 | 2 }[];
      /** Lands 100 ms after the previous command, so two writes of ours share a second. */
      quick: boolean;
    }
  | {
      t: "user";
      /** The manual status the user sets (one of four), or `null`: the user clears it. */
      manual: number | null;
      /** `null`: the status does not expire (`status_expiration: 0`). */
      expiresInMin: number | null;
      /**
       * The user acts in the very instant of our previous command, so in the second of any
       * write it sent: `first` says whether the user or our write in flight reached the
       * service first. Event times cannot tell the two apart; only a read can.
       */
      tie?: { first: "user" | "ours" };
    }
  | { t: "deliver"; index: number; duplicate: boolean }
  | { t: "drop"; index: number }
  | { t: "lose"; index: number }
  | { t: "reconcile" }
  | { t: "land" }
  | { t: "finish"; outcome: "ok" | "failed" | "record_fails"; applied: boolean };

const noExpiry = fc.constant(null);

const userArb: fc.Arbitrary<Command> = fc.record({
  t: fc.constant("user" as const),
  manual: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
  // One manual status in three never expires: only its clear (or a read) ends it.
  expiresInMin: fc.oneof(
    { arbitrary: noExpiry, weight: 1 },
    { arbitrary: fc.integer({ min: 1, max: 120 }), weight: 2 },
  ),
  // One action in four ties with the write of our previous command.
  tie: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 3 },
    {
      arbitrary: fc.record({ first: fc.constantFrom("user" as const, "ours" as const) }),
      weight: 1,
    },
  ),
});

export const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ t: fc.constant("advance" as const), seconds: fc.integer({ min: 1, max: 1800 }) }),
  fc.record({
    t: fc.constant("timeline" as const),
    blocks: fc.array(
      fc.record({
        startMin: fc.integer({ min: -30, max: 120 }),
        lengthMin: fc.integer({ min: 1, max: 90 }),
        kind: fc.constantFrom(0 as const, 1 as const, 2 as const),
      }),
      { maxLength: 4 },
    ),
    quick: fc.boolean(),
  }),
  userArb,
  fc.record({ t: fc.constant("deliver" as const), index: fc.nat(), duplicate: fc.boolean() }),
  fc.record({ t: fc.constant("drop" as const), index: fc.nat() }),
  fc.record({ t: fc.constant("reconcile" as const) }),
  fc.record({ t: fc.constant("land" as const) }),
  fc.record({
    t: fc.constant("finish" as const),
    outcome: fc.constantFrom("ok" as const, "failed" as const, "record_fails" as const),
    applied: fc.boolean(),
  }),
);

/** Days on which events of ours are delayed, duplicated, reordered and lost. */
export const days = fc.array(commandArb, { minLength: 1, maxLength: 60 });

/** Days on which the user's own events may be lost as well: a set's, or a clear's. */
export const lossyDays = fc.array(
  fc.oneof(
    { arbitrary: commandArb, weight: 9 },
    {
      arbitrary: fc.record({ t: fc.constant("lose" as const), index: fc.nat() }),
      weight: 2,
    },
  ),
  { minLength: 1, maxLength: 60 },
);

/** Days on which the user never acts: nothing but our own writes, echoes and timelines. */
export const daysWithoutTheUser = fc.array(
  commandArb.filter((c) => c.t !== "user"),
  { minLength: 1, maxLength: 60 },
);
