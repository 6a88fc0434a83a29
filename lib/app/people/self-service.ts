import { sourceUrlProblem } from "#lib/calendar/source-rules";
import type { OutOfOfficeEntry, SourceRecord } from "#lib/core/records";
import { type UserRules, userRulesSchema } from "#lib/core/rules";
import type { Block, UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import { InvalidInputError, UnknownUserError } from "../errors";
import { MAX_CALENDARS, parseInput } from "../inputs";
import { queueNotice } from "../notify/queue-notice";
import { type CalendarHealthView, calendarHealthOf } from "../notify/calendar-health";
import { connectionOf } from "../notify/home-model";
import { hasAddress, sealAddress } from "../secrets/source-address";
import { rulesOf, timelineOf } from "../status/desired-timeline";
import { mutateUser } from "../status/records";
import type { FeedProbe } from "../sync/feed-probe";

/** What a person sees of themselves on the settings page (never a token or an address). */
export interface SelfView {
  key: UserKey;
  tz: string;
  sessionEpoch: number | undefined;
  /** Whether the token works, from the status record's re-authorisation flag. */
  connection: "connected" | "revoked" | "expired";
  /** Each calendar as the Home tab shows it too (lib/app/notify/calendar-health.ts). */
  calendars: SelfCalendar[];
  /** The merged timeline from now on (and what shows now). */
  timeline: Block[];
  rules: UserRules;
  paused: boolean;
  ooo: OutOfOfficeEntry[];
  /** The messages that say something broke are turned off. */
  dmsOff: boolean;
}

/** A calendar on the settings page: its name, last good read, last error, next read. */
export interface SelfCalendar {
  id: string;
  label: string;
  /** The last read known good, epoch ms. */
  lastReadAt?: number;
  /** Why its reads fail, in words, and since when. */
  problem?: string;
  failingSince?: number;
  /** When it is read next, epoch ms. */
  nextReadAt?: number;
}

const selfCalendarOf = (c: CalendarHealthView): SelfCalendar => ({
  id: c.id,
  label: c.name,
  ...(c.lastGoodAt !== undefined ? { lastReadAt: c.lastGoodAt } : {}),
  ...(c.error !== undefined ? { problem: c.error.words, failingSince: c.error.since } : {}),
  ...(c.nextReadAt !== undefined ? { nextReadAt: c.nextReadAt } : {}),
});

/** The settings page's view of the user, or undefined when there is no such user. */
export async function selfView(ctx: UseCaseContext, key: UserKey): Promise<SelfView | undefined> {
  const now = ctx.clock.now();
  const snap = await ctx.store.loadUser(key);
  const user = snap.user;
  if (user === undefined) return undefined;
  return {
    key,
    tz: user.tz,
    sessionEpoch: user.sessionEpoch,
    connection: connectionOf(snap.status),
    calendars: user.sources.map((s, i) => selfCalendarOf(calendarHealthOf(key, user, s, i, now))),
    timeline: timelineOf(ctx.log, snap, now),
    rules: rulesOf(ctx.log, user),
    paused: user.mode === "paused",
    ooo: snap.ooo
      .filter((e) => e.end > now)
      .sort((a, b) => a.start - b.start)
      .map(({ key: _key, ...entry }) => entry),
    dmsOff: user.dmsOff === true,
  };
}

/**
 * A source without its validators (etag, Last-Modified, content hash): its next sync reads and
 * expands the feed in full even if it did not change, so new rules shape its timeline.
 */
const withoutValidators = ({ etag: _e, lastModified: _l, hash: _h, ...source }: SourceRecord) =>
  source;

/**
 * Pauses (the status Statuspilot set is cleared) or resumes, then reconciles. Resuming also
 * forgets the calendars' validators, so the syncs the caller queues re-apply every timeline.
 */
export async function setPaused(ctx: UseCaseContext, key: UserKey, paused: boolean): Promise<void> {
  await mutateUser(ctx, key, (u) => ({
    ...u,
    mode: paused ? "paused" : "auto",
    sources: paused ? u.sources : u.sources.map(withoutValidators),
  }));
  await ctx.reconcile(key);
  // The Home tab shows the mode.
  await queueNotice(ctx.queue, ctx.clock, key);
}

/**
 * Replaces the user's rules, checked by the rules schema; stored as given (partial), so later
 * defaults still apply to what the person left out. The caller re-syncs: rules shape timelines.
 */
export async function saveRules(ctx: UseCaseContext, key: UserKey, rules: unknown): Promise<void> {
  parseInput(userRulesSchema, rules, "/rules");
  await mutateUser(ctx, key, (u) => ({
    ...u,
    rules: rules as Record<string, unknown>,
    sources: u.sources.map(withoutValidators),
  }));
}

/**
 * Adds a secret ICS address: checked by the source rules, fetched once, then saved. Answers the
 * new source's id, for the first sync the caller queues.
 */
export async function addCalendar(
  ctx: UseCaseContext,
  key: UserKey,
  url: string,
  probe: FeedProbe,
): Promise<string> {
  const address = url.trim();
  if (address.length === 0 || address.length > 2048) {
    throw new InvalidInputError("the calendar address must be 1 to 2048 characters", "/url");
  }
  const policy = { allowPrivate: ctx.options.allowPrivateSourceAddresses };
  const problem = sourceUrlProblem(address, policy) ?? (await probe(address));
  if (problem !== undefined) throw new InvalidInputError(`calendar address ${problem}`, "/url");
  const id = `ics-${ctx.newId()}`;
  // Checked and fetched above: from here on the address is stored only sealed.
  const sealed = await sealAddress(ctx.tokens, key, id, address);
  await mutateUser(ctx, key, (u) => {
    if (u.sources.some((s) => hasAddress(key, s, address))) {
      throw new InvalidInputError("this calendar is already there", "/url");
    }
    if (u.sources.length >= MAX_CALENDARS) {
      throw new InvalidInputError(`at most ${MAX_CALENDARS} calendars`, "/url");
    }
    const source: SourceRecord = { id, kind: "ics", ...sealed };
    return { ...u, sources: [...u.sources, source] };
  });
  return id;
}

/** Removes a calendar and its timeline, then reconciles; false when there was no such calendar. */
export async function removeCalendar(
  ctx: UseCaseContext,
  key: UserKey,
  sourceId: string,
): Promise<boolean> {
  const user = await ctx.store.getUser(key);
  if (user === undefined) throw new UnknownUserError(key.team, key.user);
  if (!user.sources.some((s) => s.id === sourceId)) return false;
  await mutateUser(ctx, key, (u) => ({
    ...u,
    sources: u.sources.filter((s) => s.id !== sourceId),
  }));
  await ctx.store.deleteTimeline(key, sourceId);
  await ctx.reconcile(key);
  return true;
}
