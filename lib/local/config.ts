import { readFileSync } from "node:fs";
import * as z from "zod";
import { ConfigError } from "#devstack/errors";
import { localProvidersSchema } from "./config-providers";
import type { LocalUserConfig } from "./stack";

const zoneSchema = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, "not an IANA time zone");

const userSchema = z
  .object({
    team: z.string().regex(/^T[A-Z0-9]+$/, "team ids start with T"),
    user: z.string().regex(/^[UW][A-Z0-9]+$/, "user ids start with U or W"),
    token: z.string().min(1),
    tz: zoneSchema,
    calendars: z.array(z.url({ protocol: /^https?$/ })).min(1),
    rules: z.record(z.string(), z.unknown()).optional(),
    emails: z.array(z.email()).optional(),
  })
  .strict();

/** `statuspilot start --config FILE`: the users to automate and their calendars. */
export const localConfigSchema = z
  .object({ users: z.array(userSchema).min(1), providers: localProvidersSchema.optional() })
  .strict()
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    config.users.forEach((u, i) => {
      const key = `${u.team}/${u.user}`;
      if (seen.has(key))
        ctx.addIssue({
          code: "custom",
          path: ["users", i, "user"],
          message: `duplicate user ${key}`,
        });
      seen.add(key);
    });
  });

const pointerOf = (path: PropertyKey[]) => `/${path.map(String).join("/")}`;

/** Parses a config; the error names the first problem's JSON pointer, never a token's value. */
export function parseLocalConfig(value: unknown): LocalUserConfig[] {
  const parsed = localConfigSchema.safeParse(value);
  if (parsed.success) return parsed.data.users;
  const first = parsed.error.issues[0];
  const pointer = pointerOf(first?.path ?? []);
  throw new ConfigError(`config ${pointer}: ${first?.message ?? "invalid"}`, pointer, {
    cause: parsed.error,
  });
}

export function loadLocalConfig(path: string): LocalUserConfig[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error: unknown) {
    throw new ConfigError(`cannot read config ${path}`, "", { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error: unknown) {
    throw new ConfigError(
      `config ${path} is not JSON: ${error instanceof Error ? error.message : ""}`,
      "",
      {
        cause: error,
      },
    );
  }
  return parseLocalConfig(json);
}
