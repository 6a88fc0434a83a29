import { readFileSync } from "node:fs";
import * as z from "zod";
import { ConfigError } from "#devstack/errors";
import { userRulesSchemaKnowing } from "#lib/core/rules";
import { localProvidersSchema } from "./config-providers";
import type { LocalUserConfig } from "./stack";
import { localSourceId } from "./stack-types";

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
      // The rules are checked here, as the admin API checks them: a bad one refuses the start.
      if (u.rules === undefined) return;
      const calendars = u.calendars.map((_url, j) => localSourceId(j));
      const rules = userRulesSchemaKnowing(calendars).safeParse(u.rules);
      const issue = rules.success ? undefined : rules.error.issues[0];
      if (issue !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["users", i, "rules", ...issue.path],
          message: issue.message,
        });
      }
    });
  });

const pointerOf = (path: PropertyKey[]) => `/${path.map(String).join("/")}`;

/** Parses a config; the error names the first problem's JSON pointer, never a token's value. */
export function parseLocalConfig(value: unknown): LocalUserConfig[] {
  const parsed = localConfigSchema.safeParse(value);
  if (parsed.success) return parsed.data.users;
  const first = parsed.error.issues[0];
  const pointer = pointerOf(first?.path ?? []);
  throw new ConfigError(
    `config ${pointer}${whose(value, first?.path)}: ${first?.message ?? "invalid"}`,
    pointer,
    { cause: parsed.error },
  );
}

/** " (user T1/U1)" for a problem under /users/N, so the message names whose rules they are. */
function whose(config: unknown, path: PropertyKey[] | undefined): string {
  if (path?.[0] !== "users" || typeof path[1] !== "number") return "";
  const users = (config as { users?: unknown } | null)?.users;
  const u = Array.isArray(users)
    ? (users[path[1]] as { team?: unknown; user?: unknown })
    : undefined;
  const id = (v: unknown) => (typeof v === "string" ? v : "?");
  return u === undefined || u === null ? "" : ` (user ${id(u.team)}/${id(u.user)})`;
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
