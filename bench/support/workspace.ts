import { parseWorkspace, type Workspace } from "#emulator/server";

export const BENCH_TEAM = "T0BENCH";
export const BENCH_APP = "A0STATUSPILOT";
export const BENCH_ADMIN = "U0ADMIN";
export const BENCH_ADMIN_TOKEN = "xoxp-bench-admin";
export const BENCH_SIGNING_SECRET = "bench-signing-secret";

/** Users U00001, U00002, …: ids the local config schema accepts (U plus capitals and digits). */
export const benchUserId = (i: number): string => `U${String(i + 1).padStart(5, "0")}`;
export const benchTokenOf = (user: string): string => `xoxp-bench-${user}`;

/**
 * An emulator workspace on a paid plan with the given members, each with a user token of their
 * own, one admin (whose token may set any member's status), and the Statuspilot app subscribed
 * to `user_change`.
 */
export function benchWorkspace(members: readonly string[], eventsUrl: string): Workspace {
  const scopes = ["users.profile:write", "users.profile:read", "dnd:read", "dnd:write"];
  return parseWorkspace(
    {
      team: { id: BENCH_TEAM, name: "Bench", plan: "pro", profile_source: "api" },
      users: [
        ...members.map((id) => ({ id, name: id.toLowerCase(), role: "member", tz: "UTC" })),
        { id: BENCH_ADMIN, name: "admin", role: "admin", tz: "UTC" },
      ],
      tokens: [
        ...members.map((user) => ({ token: benchTokenOf(user), type: "user", user, scopes })),
        { token: BENCH_ADMIN_TOKEN, type: "user", user: BENCH_ADMIN, scopes },
      ],
      apps: [
        {
          id: BENCH_APP,
          signing_secret: BENCH_SIGNING_SECRET,
          collaborators: [BENCH_ADMIN],
          manifest: {
            display_information: { name: "Statuspilot" },
            oauth_config: { scopes: { user: scopes } },
            settings: {
              event_subscriptions: {
                request_url: eventsUrl,
                user_events: ["user_change"],
              },
            },
          },
        },
      ],
    },
    "bench workspace",
  );
}
