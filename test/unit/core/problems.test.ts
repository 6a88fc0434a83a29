import { describe, expect, it } from "vitest";
import { problemsOf } from "#lib/core/problems";
import type { SourceRecord, StatusRecord, UserRecord } from "#lib/core/records";

// The problems a person is messaged about (issue 26 §3), restated: a stopped token (not the app's
// removal), a connected calendar whose grant must be given again (that alone, whatever its reads
// left), and a calendar whose every read has failed for six hours. Nothing for an uninstalled app.

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 11, 7, 12);

const source = (id: string, extra: Partial<SourceRecord> = {}): SourceRecord =>
  ({ id, kind: "ics", url: `https://cal.example/${id}.ics`, ...extra }) as SourceRecord;
const user = (
  sources: SourceRecord[],
  uninstalledAt?: number,
): Pick<UserRecord, "sources" | "uninstalledAt"> => ({
  sources,
  ...(uninstalledAt !== undefined ? { uninstalledAt } : {}),
});
const stopped = (code: string, at: number): Pick<StatusRecord, "state"> =>
  ({ state: { needsReauth: { code, at } } }) as Pick<StatusRecord, "state">;
const failingSince = (since: number) => ({
  health: { error: { kind: "server_error" as const, since } },
});

describe("the problems a person is told about", () => {
  it.each([
    { case: "nothing wrong", u: user([source("a")]), s: undefined, want: [] },
    {
      case: "a revoked token",
      u: user([source("a")]),
      s: stopped("token_revoked", NOW - HOUR),
      want: [{ id: "service_token", kind: "service_token", since: NOW - HOUR }],
    },
    {
      case: "the app removed: its bot is gone, nobody is told",
      u: user([source("a", failingSince(NOW - 9 * HOUR))], NOW - HOUR),
      s: stopped("app_uninstalled", NOW - HOUR),
      want: [],
    },
    {
      case: "a token stopped because the app was removed, the app not yet marked",
      u: user([source("a")]),
      s: stopped("app_uninstalled", NOW - HOUR),
      want: [],
    },
    {
      case: "a refused grant, and only that, however its reads failed",
      u: user([source("g", { reconnectSince: NOW - 2 * HOUR, ...failingSince(NOW - 8 * HOUR) })]),
      s: undefined,
      want: [
        { id: "calendar_grant#g", kind: "calendar_grant", sourceId: "g", since: NOW - 2 * HOUR },
      ],
    },
    {
      case: "a calendar failing for exactly six hours",
      u: user([source("a", failingSince(NOW - 6 * HOUR)), source("b")]),
      s: undefined,
      want: [
        {
          id: "calendar_failing#a",
          kind: "calendar_failing",
          sourceId: "a",
          since: NOW - 6 * HOUR,
        },
      ],
    },
    {
      case: "a calendar failing for a second less than six hours",
      u: user([source("a", failingSince(NOW - 6 * HOUR + 1000))]),
      s: undefined,
      want: [],
    },
  ])("$case", ({ u, s, want }) => {
    expect(problemsOf(u, s, NOW)).toEqual(want);
  });
});
