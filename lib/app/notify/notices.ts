import { createHash } from "node:crypto";
import type { Clock } from "#lib/core/clock";
import type { NoticeStore, ProblemRecord } from "#lib/core/notice-store";
import type { Delivery, Notifier } from "#lib/core/notifier";
import type { Log, StatusStore } from "#lib/core/ports";
import { type Problem, problemsOf } from "#lib/core/problems";
import type { SourceKind, UserRecord, UserSnapshot } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { type HomeLinks, renderHome } from "./home-blocks";
import { homeModelOf, stableModelOf } from "./home-model";
import { type MessageLinks, problemMessage } from "./problem-messages";

/**
 * Telling a person (issue 26), run for one person whenever something they are shown may have
 * changed (a calendar's health, a grant, their token, pause or resume) or they opened the Home
 * tab: each problem that stands and has no record gets one (a conditional create) and its one
 * message; a record whose problem cleared is deleted (the Home tab says so; no second message);
 * the Home view is published when what it shows changed since the last one (its hash), or when
 * asked (`force`), and only for a person who has a Home view: nobody's tab costs anything until
 * they open it.
 */

export interface NoticeDeps {
  store: Pick<StatusStore, "loadUser">;
  notices: NoticeStore;
  notifier: Notifier;
  clock: Clock;
  log: Log;
  /** Where people reach the app (PUBLIC_BASE_URL); without it, views carry no links. */
  publicBaseUrl?: string;
  /** Where a calendar account of `kind` is connected again (`/connect/<provider>`), if it can be. */
  reconnectPath?: (kind: SourceKind) => string | undefined;
}

export interface NoticeRequest {
  /** Publish even if nothing changed: the person opened the tab, or spent its settings link. */
  force?: boolean;
  /**
   * The one-time link that signs the person in to their settings (lib/web/settings-link.ts),
   * for the session epoch they have: made only for a view published.
   */
  settingsLink?: (who: UserKey & { epoch: number }) => Promise<string | undefined>;
}

export interface NoticeOutcome {
  /** The problems whose message went out now. */
  told: string[];
  /** Whether a Home view was published. */
  published: boolean;
}

/** A problem claimed for its message this long ago and never settled: its worker died. */
export const CLAIM_MS = 60_000;

function linksOf(
  base: string | undefined,
  reconnectPath: NoticeDeps["reconnectPath"],
): MessageLinks {
  const at = (path: string | undefined) =>
    base === undefined || path === undefined ? undefined : new URL(path, base).href;
  const install = at("/install");
  const settings = at("/settings");
  return {
    ...(install !== undefined ? { install } : {}),
    ...(settings !== undefined ? { settings } : {}),
    reconnect: (kind) => at(reconnectPath?.(kind)),
  };
}

export const viewHash = (value: unknown): string =>
  createHash("sha256").update(JSON.stringify(value)).digest("base64url").slice(0, 22);

export async function runNotice(
  deps: NoticeDeps,
  key: UserKey,
  req: NoticeRequest = {},
): Promise<NoticeOutcome> {
  const now = deps.clock.now();
  const snap = await deps.store.loadUser(key);
  const links = linksOf(deps.publicBaseUrl, deps.reconnectPath);
  const told = snap.user === undefined ? [] : await tellProblems(deps, snap.user, snap, links, now);
  const published = await publishHome(deps, key, snap, links, req, now);
  return { told, published };
}

async function tellProblems(
  deps: NoticeDeps,
  user: UserRecord,
  snap: Pick<UserSnapshot, "status">,
  links: MessageLinks,
  now: number,
): Promise<string[]> {
  const key = user.key;
  const standing = problemsOf(user, snap.status, now);
  const records = new Map((await deps.notices.problems(key)).map((r) => [r.id, r]));
  const told: string[] = [];
  for (const problem of standing) {
    const record = records.get(problem.id);
    let claimed: ProblemRecord | undefined;
    if (record === undefined) {
      const fresh: ProblemRecord = { key, id: problem.id, openedAt: now };
      if (await deps.notices.putProblem(fresh)) claimed = fresh;
    } else if (
      record.toldAt === undefined &&
      record.untold === undefined &&
      record.openedAt <= now - CLAIM_MS
    ) {
      // Claimed by a worker that never settled it: take it over.
      const retaken: ProblemRecord = { key, id: problem.id, openedAt: now };
      if (await deps.notices.putProblem(retaken, record.openedAt)) claimed = retaken;
    }
    if (claimed === undefined) continue;
    if (await tell(deps, user, problem, claimed, links)) told.push(problem.id);
  }
  // A problem that cleared: its record goes, so that the same problem later is told again.
  const ids = new Set(standing.map((p) => p.id));
  for (const id of records.keys()) if (!ids.has(id)) await deps.notices.deleteProblem(key, id);
  return told;
}

/** Sends the problem's message, unless turned off, and settles its record with the outcome. */
async function tell(
  deps: NoticeDeps,
  user: UserRecord,
  problem: Problem,
  claimed: ProblemRecord,
  links: MessageLinks,
): Promise<boolean> {
  const key = user.key;
  let untold: ProblemRecord["untold"] = "dms_off";
  if (user.dmsOff !== true) {
    let delivery: Delivery;
    try {
      delivery = await deps.notifier.dm(key, problemMessage(problem, user, links));
    } catch (error: unknown) {
      // Not sent: free the claim at once, so the queue's retry sends it.
      await deps.notices
        .putProblem({ ...claimed, openedAt: claimed.openedAt - CLAIM_MS }, claimed.openedAt)
        .catch(() => undefined);
      throw error;
    }
    untold = delivery.delivered ? undefined : delivery.reason;
  }
  const settled: ProblemRecord =
    untold === undefined ? { ...claimed, toldAt: deps.clock.now() } : { ...claimed, untold };
  await deps.notices.putProblem(settled, claimed.openedAt);
  const logData = { team: key.team, user: key.user, problem: problem.id };
  if (untold === undefined) deps.log.info("problem told by direct message", logData);
  else deps.log.info("problem not told", { ...logData, why: untold });
  return untold === undefined;
}

async function publishHome(
  deps: NoticeDeps,
  key: UserKey,
  snap: UserSnapshot,
  links: MessageLinks,
  req: NoticeRequest,
  now: number,
): Promise<boolean> {
  const home = await deps.notices.home(key);
  // Nobody's tab is published before they open it (after that, whenever it changes).
  if (home === undefined && req.force !== true) return false;
  const model = homeModelOf(deps.log, snap, now);
  const hash = viewHash(renderHome(stableModelOf(model), { ...links, settings: "-" }));
  if (home?.hash === hash && req.force !== true) return false;
  const epoch = snap.user?.sessionEpoch;
  // Without a session epoch (registered, never signed in) the settings page is the sign-in.
  const settings =
    epoch === undefined || !model.installed
      ? links.settings
      : ((await req.settingsLink?.({ ...key, epoch })) ?? links.settings);
  const viewLinks: HomeLinks = {
    ...(links.install !== undefined ? { install: links.install } : {}),
    ...(settings !== undefined ? { settings } : {}),
    reconnect: links.reconnect,
  };
  const delivery = await deps.notifier.publishHome(key, renderHome(model, viewLinks));
  if (!delivery.delivered) {
    deps.log.info("Home tab not published", {
      team: key.team,
      user: key.user,
      why: delivery.reason,
    });
    return false;
  }
  await deps.notices.putHome({ key, hash, publishedAt: now });
  return true;
}
