import type { Log } from "#lib/core/ports";
import type { UserRecord, UserSnapshot } from "#lib/core/records";
import { DEFAULT_RULES, outOfOfficeText, type UserRules, userRulesSchema } from "#lib/core/rules";
import { resolveSegments, type Segment } from "#lib/core/timeline";
import type { Block } from "#lib/core/types";
import { OFF_HOURS_HORIZON_MS, offHoursBlocks } from "#lib/core/working-hours";

/** A user's rules, or the defaults (with a warning) when the stored ones no longer parse. */
export function rulesOf(log: Log, user: UserRecord): UserRules {
  const parsed = userRulesSchema.safeParse(user.rules);
  if (parsed.success) return parsed.data;
  log.warn("stored rules are invalid; using the defaults", {
    team: user.key.team,
    user: user.key.user,
  });
  return DEFAULT_RULES;
}

/**
 * The merged desired timeline: every source's blocks, scheduled out-of-office, and the stretches
 * outside working hours (made here, from the rules, for the days ahead: each one's start is a
 * block start, so the reconcile wakes there and makes the next), ranked by priority.
 */
export function timelineOf(log: Log, snap: UserSnapshot, now: number): Block[] {
  const user = snap.user;
  const rules = user === undefined ? DEFAULT_RULES : rulesOf(log, user);
  const tz = user?.tz ?? "UTC";
  const segments: Segment[] = [];
  // Only calendars the user still has count; a removed one's timeline may linger a moment.
  const current = new Set(user?.sources.map((src) => src.id) ?? []);
  for (const t of snap.timelines) {
    if (!current.has(t.sourceId)) continue;
    for (const b of t.blocks) if (b.end > now) segments.push(b);
  }
  for (const e of snap.ooo) {
    if (e.end <= now) continue;
    segments.push({
      start: e.start,
      end: e.end,
      kind: "ooo",
      text: outOfOfficeText(e.text, e.end, tz, rules.locale, e.start),
      emoji: e.emoji,
      ...(rules.ooo.dnd ? { dnd: true } : {}),
    });
  }
  segments.push(...offHoursBlocks(rules.workingHours, tz, now, now + OFF_HOURS_HORIZON_MS));
  return resolveSegments(segments, { bridgeGapMinutes: rules.bridgeGapMinutes });
}

/**
 * Whether two stored rules differ in their working hours: the stretches outside them are made by
 * the timeline, not by a sync, so a change needs a reconcile of its own (a person with no
 * calendar has no sync to bring it).
 */
export const workingHoursChanged = (
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown>,
): boolean => JSON.stringify(before?.workingHours) !== JSON.stringify(after.workingHours);
