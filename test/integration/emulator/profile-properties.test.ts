import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { profileContext } from "#emulator/methods";
import { EmulatorModel } from "#emulator/model";
import { type RunningEmulator, startEmulator } from "#emulator/server";
import { ManualClock } from "#lib/core/clock";
import { validateProfile } from "#lib/schema/profile";
import { ServiceClient } from "#lib/service/client";
import { ServiceError } from "#lib/service/errors";
import { conformanceWorkspace } from "../service/harness";
import {
  applyStatus,
  expire,
  type OracleField,
  type OracleStatus,
  SPEC_LIMITS,
  violations,
} from "./spec-oracle";

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);

// Names: an alphabet that cannot spell a URL, "@" or the reserved name, plus a labelled pool.
const nameChars = fc.constantFrom(..."abcdeXYZ019 -_'é😀".split(/(?:)/u));
const name = (max: number) =>
  fc.oneof(
    fc.string({ unit: nameChars, maxLength: max + 5 }),
    fc.constantFrom(
      "",
      "Mia",
      "@mia",
      "slackbot",
      " SlackBot ",
      "Pat slackbot",
      "slackbot Pat",
      "Pat slackbot Lee",
      "Mia www.spam.com",
      "see https://x.example",
      "Zoë O'Brien",
      "x".repeat(max),
      "x".repeat(max + 1),
      "😀".repeat(max),
      "😀".repeat(max + 1),
    ),
  );
const statusText = fc.oneof(
  fc.string({ maxLength: 100 }),
  fc.string({ unit: nameChars, minLength: 95, maxLength: 105 }),
  fc.constantFrom("", "Lunch", "😀".repeat(100), "😀".repeat(101)),
);
const emoji = fc.constantFrom(
  "",
  ":calendar:",
  ":partyparrot:",
  ":focus-time:",
  ":thumbsup::skin-tone-3:",
  ":not-an-emoji:",
  "calendar",
  ":CAPS:",
);
/** The pool's emoji that the conformance team has enabled (standard, or its custom ones). */
const ENABLED_EMOJI = new Set([
  ":calendar:",
  ":partyparrot:",
  ":focus-time:",
  ":thumbsup::skin-tone-3:",
]);
const expiration = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 1, max: 2_000_000_000 }),
  fc.constantFrom(-5, 1.5),
);
const tags = fc.oneof(
  fc.uniqueArray(fc.string({ unit: nameChars, minLength: 1, maxLength: 55 }), { maxLength: 6 }),
  fc.constant(["focus", "focus"]),
  fc.integer({ min: 70, max: 80 }).map((n) => Array.from({ length: n }, (_, i) => `tag${i}`)),
);
const userIds = fc
  .integer({ min: 1, max: 30 })
  .map((n) => Array.from({ length: n }, (_, i) => `U0USER${i}`).join(","));
const longText = fc.integer({ min: 4995, max: 5005 }).map((n) => "a".repeat(n));
const link = fc.constantFrom(
  "https://statuspilot.example/u/mia",
  `https://${"a".repeat(240)}.example`,
  `https://${"a".repeat(250)}.example`,
  "not a link",
);

const anyProfile = fc.record(
  {
    status_text: statusText,
    status_emoji: emoji,
    status_expiration: expiration,
    display_name: name(SPEC_LIMITS.displayName),
    first_name: name(20),
    last_name: name(20),
    real_name: name(SPEC_LIMITS.realName),
    title: fc.string({ maxLength: 30 }),
    pronouns: fc.constantFrom("she/her", "they/them", ""),
    start_date: fc.constantFrom("2024-02-29", "2023-02-29", "", "soon"),
    fields: fc.record(
      {
        Xf01TEAM: fc.record(
          {
            value: fc.oneof(
              fc.string({ maxLength: 20 }),
              fc.constantFrom("t".repeat(256), "t".repeat(257)),
            ),
            alt: fc.constantFrom("", "a".repeat(256), "a".repeat(257)),
          },
          { requiredKeys: ["value"] },
        ),
        Xf03FLOOR: fc.record({ value: fc.constantFrom("ground", "first", "roof", "") }),
        Xf04SKILLS: fc.record({ value: tags }),
        Xf05SITE: fc.record({ value: link }),
        Xf06BIO: fc.record({ value: longText }),
        Xf07MANAGERS: fc.record({ value: userIds }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

/** Status-only calls (sets, text-only, emoji-only, clears, lone empties) to walk the stored state. */
const statusOnly = fc.record(
  {
    status_text: fc.constantFrom("", "Lunch", "In a meeting"),
    status_emoji: fc.constantFrom("", ":calendar:", ":partyparrot:"),
    status_expiration: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2_000_000_000 })),
  },
  { requiredKeys: [] },
);

/** A status set naming no expiration, after one that named it: spec 3 says it does not expire. */
const statusSetsOverExpiring = fc.tuple(
  fc.record({
    status_text: fc.constantFrom("In a meeting", "Focus"),
    status_emoji: fc.constantFrom(":calendar:", ":partyparrot:"),
    status_expiration: fc.integer({ min: 1_800_000_000, max: 2_000_000_000 }),
  }),
  fc.oneof(
    fc.record({ status_text: fc.constantFrom("Lunch", "Away") }, { requiredKeys: [] }),
    fc.record({ status_emoji: fc.constantFrom(":calendar:", ":focus-time:") }),
    fc.record({ title: fc.constantFrom("Engineer", "") }),
  ),
);

const EXTRA_FIELDS: OracleField[] = [
  { id: "Xf05SITE", type: "link" },
  { id: "Xf06BIO", type: "long_text" },
  { id: "Xf07MANAGERS", type: "user" },
];

describe("property: schema and emulator both agree with an independent reading of the spec", () => {
  const clock = new ManualClock(T0);
  let emu: RunningEmulator;
  let client: ServiceClient;
  const workspace = conformanceWorkspace((ws) => {
    for (const f of EXTRA_FIELDS) ws.fields.push({ id: f.id, label: f.id, type: f.type });
  });
  const ctx = profileContext(new EmulatorModel(workspace), true);
  const oracleFields: OracleField[] = workspace.fields.map((f) => ({
    id: f.id,
    type: f.type,
    ...(f.possible_values ? { possibleValues: f.possible_values } : {}),
  }));
  // The member's stored status as the oracle follows it; the workspace seeds none.
  let stored: OracleStatus = { text: "", emoji: "", expiration: 0 };

  beforeAll(async () => {
    emu = await startEmulator({ workspace, clock, expirySweepMs: 0 });
    client = new ServiceClient({ baseUrl: emu.apiBase, clock, budget: false, validate: false });
  });
  afterAll(async () => {
    await emu.close();
  });

  it("validateProfile reports problems exactly when the oracle finds a violation, with its codes", () => {
    const seen = { valid: 0, invalid: 0 };
    fc.assert(
      fc.property(fc.oneof(anyProfile, statusOnly), (profile) => {
        // Act
        const expected = violations(profile, { fields: oracleFields, enabledEmoji: ENABLED_EMOJI });
        const problems = validateProfile(profile, ctx);
        // Assess
        seen[expected.size === 0 ? "valid" : "invalid"] += 1;
        const found = problems.map((p) => p.code ?? "invalid_arguments");
        expect(found.length > 0, JSON.stringify({ profile, found, expected: [...expected] })).toBe(
          expected.size > 0,
        );
        expect(new Set(found), JSON.stringify(profile)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
    expect(seen.valid).toBeGreaterThan(50);
    expect(seen.invalid).toBeGreaterThan(50);
  });

  it("the emulator accepts exactly what the oracle accepts, and stores the status it predicts", async () => {
    const seen = { accepted: 0, rejected: 0, halfClears: 0 };
    /** One call; the oracle's stored status moves along when the call is accepted. */
    async function step(profile: Record<string, unknown>, form: boolean): Promise<void> {
      // Prepare: a fresh rate-limit window for every call; expired statuses are cleared.
      clock.advance(61_000);
      stored = expire(stored, Math.floor(clock.now() / 1000));
      const expected = violations(profile, {
        fields: oracleFields,
        enabledEmoji: ENABLED_EMOJI,
        stored,
      });
      // Act
      const outcome = await client
        .setProfile({ token: "xoxp-member-0001", profile, encoding: form ? "form" : "json" })
        .then(
          (p) => ({ ok: true as const, p }),
          (e: unknown) => ({ ok: false as const, e }),
        );
      // Assess
      seen[outcome.ok ? "accepted" : "rejected"] += 1;
      const about = JSON.stringify({ profile, stored, expected: [...expected] });
      if (expected.size === 0) {
        expect(outcome.ok, `${about} ${outcome.ok ? "" : String(outcome.e)}`).toBe(true);
        if (!outcome.ok) return;
        stored = applyStatus(stored, profile);
        const shown = {
          text: outcome.p.status_text,
          emoji: outcome.p.status_emoji,
          expiration: outcome.p.status_expiration,
        };
        expect(shown, about).toEqual(stored);
      } else {
        expect(outcome.ok, about).toBe(false);
        if (outcome.ok) return;
        expect(outcome.e).toBeInstanceOf(ServiceError);
        const code = (outcome.e as ServiceError).code;
        if (code === "must_clear_both_status_text_and_status_emoji") seen.halfClears += 1;
        expect([...expected], about).toContain(code);
      }
    }

    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.oneof(anyProfile, statusOnly, statusOnly), fc.boolean()), {
          minLength: 1,
          maxLength: 5,
        }),
        statusSetsOverExpiring,
        async (calls, overExpiring) => {
          // Prepare: each sequence starts from a cleared status, so a counterexample replays.
          await step({ status_text: "", status_emoji: "" }, false);
          for (const [profile, form] of calls) await step(profile, form);
          const [expiring, then] = overExpiring;
          await step(expiring, false);
          await step(then, true);
        },
      ),
      { numRuns: 80 },
    );
    // Both sides of the property, and the stateful half clear, were exercised.
    expect(seen.accepted).toBeGreaterThan(5);
    expect(seen.rejected).toBeGreaterThan(5);
    expect(seen.halfClears).toBeGreaterThan(0);
  });
});
