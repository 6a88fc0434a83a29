import type { StatusRecord, UserRecord } from "./records";
import { FAILING_NOTICE_MS } from "./source-health";

/**
 * The problems a person is told about by a direct message, once each (issue 26): a record per
 * problem, keyed by its kind and source, says the message went out. Pure: which problems a user
 * has now, from their records.
 */

export type ProblemKind =
  /** The person's own token was revoked or expired: nothing sets their status. */
  | "service_token"
  /** A connected calendar's account refused its grant, past repair: it must be connected again. */
  | "calendar_grant"
  /** A calendar failed every read for FAILING_NOTICE_MS. */
  | "calendar_failing";

export interface Problem {
  /** `<kind>` or `<kind>#<sourceId>`: one record, and so one message, per problem. */
  id: string;
  kind: ProblemKind;
  sourceId?: string;
  /** Since when it stands, epoch ms. */
  since: number;
}

export const problemId = (kind: ProblemKind, sourceId?: string): string =>
  sourceId === undefined ? kind : `${kind}#${sourceId}`;

/** Why the service stopped taking a user's token, when it was removed with the whole app. */
const APP_UNINSTALLED = "app_uninstalled";

/**
 * The problems standing at `now`. An uninstalled app tells nobody anything (its bot is gone
 * too); a calendar whose account must be connected again has that problem only, not also the
 * failing one its last reads may have left.
 */
export function problemsOf(
  user: Pick<UserRecord, "sources" | "uninstalledAt">,
  status: Pick<StatusRecord, "state"> | undefined,
  now: number,
): Problem[] {
  if (user.uninstalledAt !== undefined) return [];
  const problems: Problem[] = [];
  const stopped = status?.state.needsReauth;
  if (stopped !== undefined && stopped.code !== APP_UNINSTALLED) {
    problems.push({ id: problemId("service_token"), kind: "service_token", since: stopped.at });
  }
  for (const source of user.sources) {
    if (source.reconnectSince !== undefined) {
      const kind = "calendar_grant";
      problems.push({
        id: problemId(kind, source.id),
        kind,
        sourceId: source.id,
        since: source.reconnectSince,
      });
      continue;
    }
    const error = source.health?.error;
    if (error !== undefined && now - error.since >= FAILING_NOTICE_MS) {
      const kind = "calendar_failing";
      problems.push({
        id: problemId(kind, source.id),
        kind,
        sourceId: source.id,
        since: error.since,
      });
    }
  }
  return problems;
}
