import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { profileContext } from "../../../emulator/methods";
import { EmulatorModel } from "../../../emulator/model";
import { type RunningEmulator, startEmulator } from "../../../emulator/server";
import { ManualClock } from "../../../lib/core/clock";
import { validateProfile } from "../../../lib/schema/profile";
import { ServiceClient } from "../../../lib/service/client";
import { ServiceError } from "../../../lib/service/errors";
import { conformanceWorkspace } from "../service/harness";

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);

const text = (max: number) =>
  fc.oneof(
    fc.string({ maxLength: max }),
    fc.constantFrom(
      "",
      "Mia",
      "@mia",
      "slackbot",
      "Mia www.spam.com",
      "Zoë O'Brien",
      "x".repeat(max),
    ),
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
const statusProfile = fc.record(
  {
    status_text: fc.oneof(text(100), fc.string({ minLength: 101, maxLength: 120 })),
    status_emoji: emoji,
    status_expiration: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2_000_000_000 })),
    display_name: text(90),
    first_name: text(20),
    last_name: text(20),
    real_name: text(60),
    title: fc.string({ maxLength: 30 }),
    pronouns: fc.constantFrom("she/her", "they/them", ""),
    start_date: fc.constantFrom("2024-02-29", "2023-02-29", "", "soon"),
    fields: fc.record(
      {
        Xf01TEAM: fc.record({ value: text(260) }),
        Xf03FLOOR: fc.record({ value: fc.constantFrom("ground", "first", "roof", "") }),
        Xf04SKILLS: fc.record({ value: fc.array(fc.string({ maxLength: 55 }), { maxLength: 4 }) }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

/** Mostly valid profiles, so the accepting side of the property is exercised as much. */
const likelyValidProfile = fc.record(
  {
    status_text: fc.string({ minLength: 1, maxLength: 100 }),
    status_emoji: fc.constantFrom(":calendar:", ":partyparrot:", ":thumbsup::skin-tone-3:"),
    status_expiration: fc.integer({ min: 0, max: 2_000_000_000 }),
    title: fc.string({ maxLength: 30 }),
    display_name: fc.constantFrom("mia", "Mia M.", "Zoë"),
    fields: fc.record({ Xf03FLOOR: fc.record({ value: fc.constantFrom("ground", "first") }) }),
  },
  { requiredKeys: ["status_text", "status_emoji"] },
);

describe("property: the emulator accepts exactly the profiles the schema accepts", () => {
  const clock = new ManualClock(T0);
  let emu: RunningEmulator;
  let client: ServiceClient;
  const workspace = conformanceWorkspace();
  const ctx = profileContext(new EmulatorModel(workspace), true);

  beforeAll(async () => {
    emu = await startEmulator({ workspace, clock, expirySweepMs: 0 });
    client = new ServiceClient({ baseUrl: emu.apiBase, clock, budget: false, validate: false });
  });
  afterAll(async () => {
    await emu.close();
  });

  it("agrees with validateProfile on acceptance and on the error code, for a member's own profile", async () => {
    const seen = { accepted: 0, rejected: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(statusProfile, likelyValidProfile),
        fc.boolean(),
        async (profile, form) => {
          // Prepare: a fresh rate-limit window for every run.
          clock.advance(61_000);
          const problems = validateProfile(profile, ctx);
          // Act
          const outcome = await client
            .setProfile({ token: "xoxp-member-0001", profile, encoding: form ? "form" : "json" })
            .then(
              (p) => ({ ok: true as const, p }),
              (e: unknown) => ({ ok: false as const, e }),
            );
          // Assess
          seen[outcome.ok ? "accepted" : "rejected"] += 1;
          if (problems.length === 0) {
            expect(outcome.ok, JSON.stringify(outcome.ok ? "" : (outcome.e as Error).message)).toBe(
              true,
            );
            if (
              outcome.ok &&
              profile.status_text !== undefined &&
              profile.status_emoji !== undefined
            ) {
              expect(outcome.p.status_text).toBe(profile.status_text);
            }
          } else {
            expect(outcome.ok).toBe(false);
            if (!outcome.ok) {
              expect(outcome.e).toBeInstanceOf(ServiceError);
              expect((outcome.e as ServiceError).code).toBe(
                problems[0]?.code ?? "invalid_arguments",
              );
            }
          }
        },
      ),
      { numRuns: 150 },
    );
    // Both sides of the property were exercised.
    expect(seen.accepted).toBeGreaterThan(5);
    expect(seen.rejected).toBeGreaterThan(5);
  });
});
