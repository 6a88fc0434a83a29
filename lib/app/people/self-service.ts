import { sourceUrlProblem } from "#lib/calendar/source-rules";
import { occurrencesOf } from "#lib/core/agenda";
import { dndAllowed } from "#lib/core/dnd";
import type { OutOfOfficeEntry, SourceRecord, TooLargeMark } from "#lib/core/records";
import { type UserRules, userRulesSchema, userRulesSchemaKnowing } from "#lib/core/rules";
import type { SourceKind } from "#lib/core/source-kinds";
import type { Block, Occurrence, UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import { InvalidInputError, UnknownUserError } from "../errors";
import { MAX_CALENDARS, parseInput } from "../inputs";
import { queueNotice } from "../notice-queue";
import { type CalendarHealthView, calendarHealthOf } from "../notify/calendar-health";
import { connectionOf } from "../notify/home-model";
import { hasAddress, sealAddress, shownAddress } from "../secrets/source-address";
import { rulesOf, timelineOf, workingHoursChanged } from "../status/desired-timeline";
import { mutateUser } from "../status/records";
import type { FeedProbe, FirstSync } from "../sync/feed-probe";

/** What a person sees of themselves on the settings page (never a token or an address). */
export interface SelfView {
  key: UserKey;
  tz: string;
  sessionEpoch: number | undefined;
  /** Whether the token works, from the status record's re-authorisation flag. */
  connection: "connected" | "revoked" | "expired";
  /** Each calendar as the page and the Home tab show it (lib/app/notify/calendar-health.ts). */
  calendars: SelfCalendar[];
  /** The merged timeline from now on (and what shows now). */
  timeline: Block[];
  rules: UserRules;
  paused: boolean;
  ooo: OutOfOfficeEntry[];
  /**
   * Whether Statuspilot may put the person in Do Not Disturb (their token has `dnd:read` and
   * `dnd:write`). False for someone installed before it asked: the page offers to reconnect.
   */
  dndAllowed: boolean;
  /** The messages that say something broke are turned off. */
  dmsOff: boolean;
}

/** A calendar on the settings page: its name, last good read, last error, next read. */
export interface SelfCalendar {
  id: string;
  kind: SourceKind;
  /**
   * How to name the calendar: its own name (`name`), once a read found one, else the feed's
   * address as it may be shown (`address`, an ICS feed's only), else its kind's.
   */
  label: string;
  name?: string;
  address?: string;
  /** The last read reached a cap (the page says which, beside the calendar). */
  tooLarge?: TooLargeMark;
  /** The last read known good, epoch ms. */
  lastReadAt?: number;
  /** Why its reads fail, in words, and since when. */
  problem?: string;
  failingSince?: number;
  /** When it is read next, epoch ms. */
  nextReadAt?: number;
}

function selfCalendarOf(s: SourceRecord, c: CalendarHealthView): SelfCalendar {
  // A connected calendar's stored address is its API's, not one the person gave.
  const address = s.kind === "ics" ? shownAddress(s) : undefined;
  return {
    id: c.id,
    kind: s.kind,
    label: s.name ?? address ?? `${s.kind} calendar`,
    ...(s.name !== undefined ? { name: s.name } : {}),
    ...(address !== undefined ? { address } : {}),
    ...(s.tooLarge !== undefined ? { tooLarge: s.tooLarge } : {}),
    ...(c.lastGoodAt !== undefined ? { lastReadAt: c.lastGoodAt } : {}),
    ...(c.error !== undefined ? { problem: c.error.words, failingSince: c.error.since } : {}),
    ...(c.nextReadAt !== undefined ? { nextReadAt: c.nextReadAt } : {}),
  };
}

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
    calendars: user.sources.map((s) =>
      selfCalendarOf(s, calendarHealthOf(key, user, s, user.sources.indexOf(s), now)),
    ),
    timeline: timelineOf(ctx.log, snap, now),
    rules: rulesOf(ctx.log, user),
    paused: user.mode === "paused",
    ooo: snap.ooo
      .filter((e) => e.end > now)
      .sort((a, b) => a.start - b.start)
      .map(({ key: _key, ...entry }) => entry),
    dndAllowed: dndAllowed(user),
    dmsOff: user.dmsOff === true,
  };
}

/**
 * The events near today of the calendars `sourceIds` (the person's own), as each one's last
 * sync kept them (lib/core/agenda.ts), stamped with their calendar: what the settings page
 * explains. Undefined without an agenda store (nothing is known); none before a first sync.
 */
export async function agendaOf(
  ctx: UseCaseContext,
  key: UserKey,
  sourceIds: readonly string[],
): Promise<Occurrence[] | undefined> {
  if (ctx.agenda === undefined) return undefined;
  if (sourceIds.length === 0) return [];
  const current = new Set(sourceIds);
  const agendas = await ctx.agenda.ofUser(key);
  return agendas
    .filter((a) => current.has(a.sourceId))
    .flatMap((a) => occurrencesOf(a.sourceId, a.events));
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
 * Replaces the user's rules, checked by the rules schema (InvalidInputError with the field's
 * pointer under `/rules`); stored as given (partial), so later defaults still apply to what the
 * person left out. The caller re-syncs: rules shape timelines. A calendar the rules may name is
 * one the person has, or one the stored rules already named (a calendar removed since must not
 * block every later save).
 */
export async function saveRules(ctx: UseCaseContext, key: UserKey, rules: unknown): Promise<void> {
  parseInput(userRulesSchema, rules, "/rules");
  let hoursChanged = false;
  await mutateUser(ctx, key, (u) => {
    const named = namedCalendars(userRulesSchema.safeParse(u.rules).data);
    const known = [...u.sources.map((s) => s.id), ...named];
    parseInput(userRulesSchemaKnowing(known), rules, "/rules");
    const saved = rules as Record<string, unknown>;
    hoursChanged = workingHoursChanged(u.rules, saved);
    return { ...u, rules: saved, sources: u.sources.map(withoutValidators) };
  });
  if (hoursChanged) await ctx.reconcile(key);
}

const namedCalendars = (rules: UserRules | undefined): string[] =>
  rules === undefined ? [] : [...rules.skipCalendars, ...rules.custom.flatMap((c) => c.calendars)];

/** A calendar just added: its id, and whether its first read was applied already. */
export interface AddedCalendar {
  sourceId: string;
  /** False: the caller queues the first sync (the read could not be applied here). */
  synced: boolean;
}

/**
 * Adds a secret ICS address: checked by the source rules, fetched once, then saved. That one
 * read is the calendar's first sync (`firstSync`), so the page that confirms it shows its events
 * and the status follows at once. A read that could not be applied here is left to the sync the
 * caller queues (`synced: false`): the calendar is saved either way.
 */
export async function addCalendar(
  ctx: UseCaseContext,
  key: UserKey,
  url: string,
  probe: FeedProbe,
  firstSync: FirstSync,
): Promise<AddedCalendar> {
  const address = url.trim();
  if (address.length === 0 || address.length > 2048) {
    throw new InvalidInputError("the calendar address must be 1 to 2048 characters", "/url");
  }
  const policy = { allowPrivate: ctx.options.allowPrivateSourceAddresses };
  const refused = sourceUrlProblem(address, policy);
  const probed = refused === undefined ? await probe(address) : { problem: refused };
  if ("problem" in probed) {
    throw new InvalidInputError(`calendar address ${probed.problem}`, "/url");
  }
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
  try {
    const outcome = await firstSync(key, id, address, probed.feed);
    return { sourceId: id, synced: outcome.kind === "applied" };
  } catch (error: unknown) {
    ctx.log.warn("first read of a new calendar not applied; its sync is queued", {
      team: key.team,
      user: key.user,
      sourceId: id,
      error: error instanceof Error ? error.name : String(error),
    });
    return { sourceId: id, synced: false };
  }
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
  await ctx.agenda?.delete(key, sourceId);
  await ctx.reconcile(key);
  return true;
}
