import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CustomFieldDef,
  charLength,
  isEmojiEnabled,
  type ProfileContext,
  profileSchema,
  validateProfile,
  validateProfileField,
} from "#lib/schema/profile";
import { fixturesDir } from "./corpus-root";

type Json = Record<string, unknown>;

const readFixture = (file: string): unknown =>
  JSON.parse(readFileSync(path.join(fixturesDir, "profiles", file), "utf8"));
const teamFields = readFixture("team-fields.json") as CustomFieldDef[];
const fullProfile = () => readFixture("full-profile.json") as Json;
const ctx: ProfileContext = { fields: teamFields, customEmoji: ["statuspilot", ":party-parrot:"] };

const codes = (profile: unknown, context: ProfileContext = ctx) =>
  validateProfile(profile, context).map((p) => [p.pointer, p.code]);

describe("validateProfile standard fields", () => {
  it("accepts a profile that sets every settable field", () => {
    // Act
    const problems = validateProfile(fullProfile(), ctx);
    // Assess
    expect(problems).toEqual([]);
  });

  it("parses the profile from a JSON string, as the form encoding sends it", () => {
    // Act
    const fromString = validateProfile(JSON.stringify(fullProfile()), ctx);
    const broken = validateProfile("{not json", ctx);
    // Assess
    expect(fromString).toEqual([]);
    expect(broken).toEqual([
      { message: expect.stringContaining("not valid JSON"), pointer: "", code: "invalid_profile" },
    ]);
  });

  it.each([null, [], 7, true])(
    "answers invalid_profile for a profile that is not an object (%j)",
    (profile) => {
      // Act
      const problems = codes(profile);
      // Assess
      expect(problems).toEqual([["", "invalid_profile"]]);
    },
  );

  it.each([
    ["display_name", 80],
    ["real_name", 50],
  ])("accepts %s of %i characters and rejects one more", (field, max) => {
    // Act
    const atMax = codes({ [field]: "é".repeat(max) });
    const overMax = codes({ [field]: "é".repeat(max + 1) });
    // Assess
    expect(atMax).toEqual([]);
    expect(overMax).toEqual([[`/${field}`, "invalid_arguments"]]);
  });

  it.each(["first_name", "last_name", "real_name", "display_name"])(
    "answers invalid_starts_with_at for a %s starting with @",
    (field) => {
      // Act
      const problems = codes({ [field]: "@ada" });
      // Assess
      expect(problems).toEqual([[`/${field}`, "invalid_starts_with_at"]]);
    },
  );

  it.each([
    ["first_name", "see https://evil.example"],
    ["last_name", "www.ada"],
    ["real_name", "Ada example.com"],
    ["display_name", "ada.io"],
  ])("answers name_not_allowed for a %s containing a URL (%s)", (field, value) => {
    // Act
    const problems = codes({ [field]: value });
    // Assess
    expect(problems).toEqual([[`/${field}`, "name_not_allowed"]]);
  });

  it("accepts names with dots and initials that are not URLs", () => {
    // Act
    const problems = codes({
      real_name: "J.R.R. Tolkien",
      first_name: "Dr.",
      display_name: "j.doe",
    });
    // Assess
    expect(problems).toEqual([]);
  });

  it.each([
    ["first_name", "slackbot"],
    ["last_name", "SlackBot"],
    ["first_name", "svcbot"],
    ["real_name", "Slackbot"],
  ])("answers reserved_name for %s %s", (field, value) => {
    // Act
    const problems = codes({ [field]: value });
    // Assess
    expect(problems).toEqual([[`/${field}`, "reserved_name"]]);
  });

  it("accepts an empty skype and rejects any other value", () => {
    // Act
    const empty = codes({ skype: "" });
    const set = codes({ skype: "ada.l" });
    // Assess
    expect(empty).toEqual([]);
    expect(set).toEqual([["/skype", "invalid_arguments"]]);
  });

  it.each(["image_24", "image_512", "avatar_hash"])("refuses to set %s", (field) => {
    // Act
    const problems = validateProfile({ [field]: "x" }, ctx);
    // Assess
    expect(problems).toEqual([
      {
        message: expect.stringContaining("cannot be set"),
        pointer: `/${field}`,
        code: "invalid_arguments",
      },
    ]);
  });

  it.each(["ada@example.com", "a.b+c@mail.example.co.uk"])("accepts the email %s", (email) => {
    // Assess
    expect(codes({ email })).toEqual([]);
  });

  it.each(["ada", "ada@", "@example.com", "ada lovelace@example.com", "ada@example", ""])(
    "rejects the email %j",
    (email) => {
      // Assess
      expect(codes({ email })).toEqual([["/email", "invalid_arguments"]]);
    },
  );

  it.each(["2024-02-29", ""])("accepts start_date %j", (value) => {
    expect(codes({ start_date: value })).toEqual([]);
  });

  it.each(["2023-02-29", "2024-13-01", "01/02/2024", "2024-1-1"])(
    "rejects start_date %j",
    (value) => {
      expect(codes({ start_date: value })).toEqual([["/start_date", "invalid_arguments"]]);
    },
  );

  it("reports a wrong type with invalid_arguments", () => {
    // Act
    const problems = validateProfile({ title: 42 }, ctx);
    // Assess
    expect(problems).toEqual([
      {
        message: "title must be a string, not integer",
        pointer: "/title",
        code: "invalid_arguments",
      },
    ]);
  });

  it("reports an unknown field", () => {
    // Assess
    expect(codes({ favourite_colour: "blue" })).toEqual([
      ["/favourite_colour", "invalid_arguments"],
    ]);
  });

  it("accepts 50 fields and rejects 51", () => {
    // Prepare: unknown names are problems of their own, so count the known ones plus fillers
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, ""]));
    const fiftyOne = { ...fifty, f50: "" };
    // Act
    const atLimit = codes(fifty).filter(([pointer]) => pointer === "");
    const overLimit = codes(fiftyOne).filter(([pointer]) => pointer === "");
    // Assess
    expect(atLimit).toEqual([]);
    expect(overLimit).toEqual([["", "invalid_arguments"]]);
  });

  it("accepts field names of 255 characters and rejects 256", () => {
    // Prepare
    const at255 = "X".repeat(255);
    const at256 = "X".repeat(256);
    // Act
    const atLimit = validateProfile({ fields: { [at255]: { value: "" } } }, {});
    const overLimit = codes({ fields: { [at256]: { value: "" } } }, {});
    // Assess
    expect(atLimit).toEqual([]);
    expect(overLimit).toEqual([[`/fields/${at256}`, "invalid_arguments"]]);
  });
});

describe("validateProfile status", () => {
  it("accepts status_text of 100 code points and answers too_long at 101", () => {
    // Act
    const atLimit = codes({ status_text: "🗓".repeat(100), status_emoji: ":calendar:" });
    const overLimit = codes({ status_text: "🗓".repeat(101), status_emoji: ":calendar:" });
    // Assess
    expect(atLimit).toEqual([]);
    expect(overLimit).toEqual([["/status_text", "too_long"]]);
  });

  it("counts every code point of status_text as one character", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 100 }), (text) => {
        fc.pre(charLength(text) <= 100 && text !== "");
        // Act
        const problems = validateProfile({ status_text: text }, ctx);
        // Assess
        expect(problems).toEqual([]);
      }),
    );
  });

  it("answers too_long for any status_text of more than 100 code points", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", minLength: 101, maxLength: 130 }), (text) => {
        fc.pre(charLength(text) > 100);
        // Act
        const problems = codes({ status_text: text, status_emoji: ":x:" });
        // Assess
        expect(problems).toEqual([["/status_text", "too_long"]]);
      }),
    );
  });

  it("clears when both fields are empty", () => {
    // Assess
    expect(codes({ status_text: "", status_emoji: "", status_expiration: 0 })).toEqual([]);
  });

  it.each([
    [{ status_text: "", status_emoji: ":calendar:" }, "/status_emoji"],
    [{ status_text: "", status_emoji: ":x:" }, "/status_emoji"],
    [{ status_text: "Lunch", status_emoji: "" }, "/status_text"],
  ])("answers must_clear_both for the half clear %j", (profile, pointer) => {
    // Assess
    expect(codes(profile)).toEqual([[pointer, "must_clear_both_status_text_and_status_emoji"]]);
  });

  it.each([
    [{ status_emoji: ":x:" }, "an emoji-only set"],
    [{ status_text: "Lunch" }, "a text-only set"],
    [{ status_text: "" }, "a lone empty text, judged against the stored status by the service"],
    [{ status_emoji: "" }, "a lone empty emoji, judged against the stored status by the service"],
  ] as [Json, string][])("accepts %j: %s", (profile) => {
    // Assess
    expect(codes(profile)).toEqual([]);
  });

  it("reports a half clear exactly when one field is given empty and the other non-empty", () => {
    fc.assert(
      fc.property(
        fc.option(fc.string(), { nil: undefined }),
        fc.option(fc.constantFrom("", ":calendar:", ":palm_tree:"), { nil: undefined }),
        (text, emoji) => {
          // Prepare
          const profile: Json = {};
          if (text !== undefined) profile.status_text = text.slice(0, 100);
          if (emoji !== undefined) profile.status_emoji = emoji;
          const given = text !== undefined && emoji !== undefined;
          const isHalfClear = given && (profile.status_text === "") !== (emoji === "");
          // Act
          const problems = codes(profile);
          // Assess
          const halfClearReported = problems.some(
            ([, code]) => code === "must_clear_both_status_text_and_status_emoji",
          );
          expect(halfClearReported).toBe(isHalfClear);
        },
      ),
    );
  });

  it("accepts a status with text and no emoji key at all", () => {
    expect(codes({ status_text: "Focus time" })).toEqual([]);
  });

  it.each([":calendar:", ":+1:", ":wave::skin-tone-3:", ":statuspilot:", ":party-parrot:"])(
    "accepts the enabled emoji %s",
    (emoji) => {
      expect(codes({ status_text: "x", status_emoji: emoji })).toEqual([]);
    },
  );

  it.each([
    "calendar",
    ":calendar",
    ":Calendar:",
    ":no_such_emoji_here:",
    ":wave::skin-tone-7:",
    "🗓",
  ])("answers invalid_emoji_not_allowed for %s", (emoji) => {
    expect(codes({ status_text: "x", status_emoji: emoji })).toEqual([
      ["/status_emoji", "invalid_emoji_not_allowed"],
    ]);
  });

  it.each([0, 1, 1767004200])("accepts status_expiration %i", (value) => {
    expect(codes({ status_expiration: value })).toEqual([]);
  });

  it.each([-1, 1.5, "1767004200", null])("rejects status_expiration %j", (value) => {
    expect(codes({ status_expiration: value })).toEqual([
      ["/status_expiration", "invalid_arguments"],
    ]);
  });
});

describe("isEmojiEnabled", () => {
  it("knows the platform's standard short names and only listed custom ones", () => {
    // Assess
    expect(isEmojiEnabled(":palm_tree:")).toBe(true);
    expect(isEmojiEnabled(":thumbsup:")).toBe(true);
    expect(isEmojiEnabled(":statuspilot:")).toBe(false);
    expect(isEmojiEnabled(":statuspilot:", ["statuspilot"])).toBe(true);
    expect(isEmojiEnabled("palm_tree")).toBe(false);
  });
});

describe("validateProfile custom fields", () => {
  const field = (id: string, value: unknown, alt?: string) =>
    codes({ fields: { [id]: alt === undefined ? { value } : { value, alt } } });

  it.each([
    ["Xf01DATE", "2026-02-30"],
    ["Xf01DATE", "tomorrow"],
    ["Xf02LINK", "not a link"],
    ["Xf02LINK", `https://example.com/${"a".repeat(237)}`],
    ["Xf03LONG", "a".repeat(5001)],
    ["Xf04OPTS", "Paris"],
    ["Xf05TAGS", "math"],
    ["Xf05TAGS", ["math", "math"]],
    ["Xf05TAGS", ["a".repeat(51)]],
    ["Xf06TEXT", "a".repeat(257)],
    ["Xf07USER", "U012AB3CD,ada"],
    ["Xf07USER", Array.from({ length: 26 }, (_, i) => `U0${i}AAA`).join(",")],
  ])("rejects %s = %j with invalid_arguments", (id, value) => {
    // Act
    const problems = field(id, value);
    // Assess
    expect(problems.length).toBeGreaterThan(0);
    for (const [pointer, code] of problems) {
      expect(pointer?.startsWith(`/fields/${id}/value`)).toBe(true);
      expect(code).toBe("invalid_arguments");
    }
  });

  it.each([
    ["Xf02LINK", `https://example.com/${"a".repeat(236)}`],
    ["Xf03LONG", "a".repeat(5000)],
    ["Xf05TAGS", ["a".repeat(50)]],
    ["Xf06TEXT", "a".repeat(256)],
    ["Xf07USER", Array.from({ length: 25 }, (_, i) => `U0${i}AAA`).join(",")],
    ["Xf04OPTS", ""],
  ])("accepts %s at its limit", (id, value) => {
    expect(field(id, value)).toEqual([]);
  });

  it("allows an end user 75 tags and not 76, and an administrator more", () => {
    // Prepare
    const tags = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);
    const profile = (n: number) => ({ fields: { Xf05TAGS: { value: tags(n) } } });
    // Act
    const at75 = codes(profile(75));
    const at76 = codes(profile(76));
    const admin = codes(profile(200), { ...ctx, endUser: false });
    // Assess
    expect(at75).toEqual([]);
    expect(at76).toEqual([["/fields/Xf05TAGS/value", "invalid_arguments"]]);
    expect(admin).toEqual([]);
  });

  it("accepts alt of 256 characters and rejects 257 for every type", () => {
    for (const def of teamFields) {
      // Act
      const atLimit = field(def.id, "", "a".repeat(256));
      const overLimit = field(def.id, "", "a".repeat(257));
      // Assess
      if (def.type !== "tags") expect(atLimit).toEqual([]);
      expect(overLimit).toContainEqual([`/fields/${def.id}/alt`, "invalid_arguments"]);
    }
  });

  it("rejects a field ID the team does not have, and unknown members of a field", () => {
    // Act
    const unknownId = codes({ fields: { Xf99NOPE: { value: "x" } } });
    const unknownMember = codes({ fields: { Xf06TEXT: { value: "x", label: "y" } } });
    // Assess
    expect(unknownId).toEqual([["/fields/Xf99NOPE", "invalid_arguments"]]);
    expect(unknownMember).toEqual([["/fields/Xf06TEXT/label", "invalid_arguments"]]);
  });

  it("checks only the shape of custom fields when the team's fields are not known", () => {
    // Act
    const shapeOnly = codes({ fields: { Xany: { value: "whatever" } } }, {});
    const badShape = codes({ fields: { Xany: { value: 3 } } }, {});
    // Assess
    expect(shapeOnly).toEqual([]);
    expect(badShape).toEqual([["/fields/Xany/value", "invalid_arguments"]]);
  });
});

describe("validateProfileField", () => {
  it("validates the single name/value form like the same field in a profile", () => {
    // Assess
    expect(validateProfileField("status_text", "x".repeat(101), ctx).map((p) => p.code)).toEqual([
      "too_long",
    ]);
    expect(validateProfileField("first_name", "@ada", ctx).map((p) => p.code)).toEqual([
      "invalid_starts_with_at",
    ]);
    expect(validateProfileField("display_name", "ada", ctx)).toEqual([]);
  });

  it("takes status_expiration as decimal digits, since form values are strings", () => {
    // Assess
    expect(validateProfileField("status_expiration", "1767004200", ctx)).toEqual([]);
    expect(validateProfileField("status_expiration", "soon", ctx).map((p) => p.code)).toEqual([
      "invalid_arguments",
    ]);
  });

  it("validates a custom field ID's value against its definition", () => {
    // Assess
    expect(validateProfileField("Xf04OPTS", "Berlin", ctx)).toEqual([]);
    expect(validateProfileField("Xf04OPTS", "Paris", ctx).map((p) => p.pointer)).toEqual([
      "/fields/Xf04OPTS/value",
    ]);
    expect(validateProfileField("Xf05TAGS", "math, engines", ctx)).toEqual([]);
  });

  it("rejects a name longer than 255 characters and an unknown name", () => {
    // Assess
    expect(validateProfileField("a".repeat(256), "x", ctx).map((p) => p.code)).toEqual([
      "invalid_arguments",
    ]);
    expect(validateProfileField("favourite_colour", "blue", ctx).map((p) => p.code)).toEqual([
      "invalid_arguments",
    ]);
  });
});

describe("profileSchema", () => {
  it("parses a valid profile into its typed input", () => {
    // Act
    const parsed = profileSchema.parse({
      status_text: "Lunch",
      status_emoji: ":fork_and_knife:",
      status_expiration: 10,
    });
    // Assess
    expect(parsed.status_expiration).toBe(10);
  });
});
