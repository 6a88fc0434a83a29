import { createHash } from "node:crypto";
import type { Occurrence } from "#lib/core/types";
import { ProviderError } from "./errors";
import { type GraphCallDeps, type GraphHttpOptions, graphCall } from "./graph-http";
import { type GraphEvent, graphCalendarName, graphEventSchema, mapGraphEvent } from "./graph-map";
import type { ApiWindowFetch, Expansion, SyncWindow } from "./provider";

/**
 * Reading an Outlook calendar through Graph's `/me/calendarView/delta`, times in UTC
 * (`Prefer: outlook.timezone="UTC"`), pages followed by `@odata.nextLink` to the
 * `@odata.deltaLink`, which is the cursor the app stores on the source.
 *
 * The delta window is the requested one widened to whole UTC days, so a cursor stays usable while
 * the sync window slides within a day. With a cursor for the same days, one delta call says
 * whether anything changed: nothing → `unchanged`; something → the window is read again in full
 * (the app replaces the whole timeline, so it needs every event, not only the changed ones). A
 * cursor Graph no longer knows (410) or for other days is dropped and the window read in full.
 */
export interface GraphReadRequest {
  window: SyncWindow;
  /** The owner's IANA zone: all-day events start at its midnight. */
  tz: string;
  /** The owner's addresses, to tell them from the other attendees. */
  emails?: readonly string[];
  /** The cursor of the last read. */
  cursor?: string;
  /** The hash of the occurrences the last full read found: the same again answers unchanged. */
  hash?: string;
  /** Read in full even when the cursor says nothing changed (the horizon slid). */
  refresh?: boolean;
}

const DAY = 86_400_000;
const PAGE_SIZE = 100;
/** A guard against a server that never ends a round. */
const MAX_PAGES = 200;
const CURSOR_VERSION = "graph1";

interface Cursor {
  from: number;
  to: number;
  deltaLink: string;
}

const encodeCursor = (c: Cursor) => `${CURSOR_VERSION}|${c.from}|${c.to}|${c.deltaLink}`;
export function decodeCursor(cursor: string | undefined): Cursor | undefined {
  const [version, from, to, ...link] = cursor?.split("|") ?? [];
  if (version !== CURSOR_VERSION || link.length === 0) return undefined;
  const c = { from: Number(from), to: Number(to), deltaLink: link.join("|") };
  return Number.isFinite(c.from) && Number.isFinite(c.to) ? c : undefined;
}

/** The window widened to whole UTC days. */
export const deltaWindow = (w: SyncWindow): SyncWindow => ({
  from: Math.floor(w.from / DAY) * DAY,
  to: Math.ceil(w.to / DAY) * DAY,
});

const PREFER = `outlook.timezone="UTC", odata.maxpagesize=${PAGE_SIZE}`;

interface Round {
  items: Record<string, unknown>[];
  deltaLink: string;
}

/** Follows one delta round from `url` to its deltaLink. */
async function deltaRound(
  url: string,
  deps: GraphCallDeps,
  opts: GraphHttpOptions,
): Promise<Round> {
  const items: Record<string, unknown>[] = [];
  let next = url;
  for (let page = 0; page < MAX_PAGES; page++) {
    const body = (await graphCall(next, { headers: { prefer: PREFER } }, deps, opts)) as {
      value?: unknown;
      "@odata.nextLink"?: unknown;
      "@odata.deltaLink"?: unknown;
    };
    if (Array.isArray(body?.value)) {
      for (const v of body.value)
        if (v && typeof v === "object") items.push(v as Record<string, unknown>);
    }
    if (typeof body?.["@odata.deltaLink"] === "string") {
      return { items, deltaLink: body["@odata.deltaLink"] };
    }
    if (typeof body?.["@odata.nextLink"] !== "string") {
      throw new ProviderError(
        "upstream_status",
        "Graph's delta page had neither nextLink nor deltaLink",
      );
    }
    next = body["@odata.nextLink"];
  }
  throw new ProviderError("upstream_status", `Graph's delta round passed ${MAX_PAGES} pages`);
}

/** Events and why the others make no occurrence; only those overlapping the window count. */
export function occurrencesOf(
  items: Record<string, unknown>[],
  window: SyncWindow,
  tz: string,
  emails: readonly string[] = [],
): Pick<Expansion, "occurrences" | "skipped"> & { warnings: NonNullable<Expansion["warnings"]> } {
  const occurrences: Occurrence[] = [];
  const skipped: Expansion["skipped"] = [];
  const warnings: NonNullable<Expansion["warnings"]> = [];
  for (const item of items) {
    if ("@removed" in item) continue;
    const parsed = graphEventSchema().safeParse(item);
    if (!parsed.success) {
      warnings.push({ message: "a Graph event without id, start or end was left out" });
      continue;
    }
    const mapped = mapGraphEvent(parsed.data as GraphEvent, tz, emails);
    if ("skip" in mapped) skipped.push(mapped.skip);
    else if (mapped.occurrence.start < window.to && mapped.occurrence.end > window.from) {
      occurrences.push(mapped.occurrence);
    }
  }
  occurrences.sort((a, b) => a.start - b.start || a.uid.localeCompare(b.uid));
  return { occurrences, skipped, warnings };
}

/** The initial-round URL of a delta window. */
function firstRoundUrl(base: string, w: SyncWindow): string {
  const q = new URLSearchParams({
    startDateTime: new Date(w.from).toISOString(),
    endDateTime: new Date(w.to).toISOString(),
  });
  return `${base.replace(/\/$/, "")}/me/calendarView/delta?${q}`;
}

/** Reads the window (see the module comment); errors are ProviderError or SyncError. */
export async function readGraphWindow(
  req: GraphReadRequest,
  deps: GraphCallDeps,
  opts: GraphHttpOptions,
): Promise<ApiWindowFetch> {
  const days = deltaWindow(req.window);
  const cursor = decodeCursor(req.cursor);
  let changedSinceCursor = false;
  if (cursor && cursor.from === days.from && cursor.to === days.to) {
    try {
      const changes = await deltaRound(cursor.deltaLink, deps, opts);
      changedSinceCursor = changes.items.length > 0;
      if (!changedSinceCursor && req.refresh !== true) {
        return {
          fetch: { kind: "unchanged", reason: "not_modified", validators: {} },
          cursor: encodeCursor({ ...days, deltaLink: changes.deltaLink }),
        };
      }
    } catch (error: unknown) {
      if (!(error instanceof ProviderError && error.code === "sync_token_expired")) throw error;
    }
  }
  const round = await deltaRound(firstRoundUrl(opts.graphBaseUrl, days), deps, opts);
  const { occurrences, skipped, warnings } = occurrencesOf(
    round.items,
    req.window,
    req.tz,
    req.emails,
  );
  const hash = createHash("sha256").update(JSON.stringify(occurrences)).digest("hex");
  const next = {
    cursor: encodeCursor({ ...days, deltaLink: round.deltaLink }),
    ...(changedSinceCursor ? { changedSinceCursor } : {}),
  };
  if (req.hash === hash) {
    return { fetch: { kind: "unchanged", reason: "same_content", validators: {} }, ...next };
  }
  const name = graphCalendarName(round.items);
  return {
    fetch: { kind: "fetched", name, occurrences, skipped, warnings, validators: { hash } },
    ...next,
  };
}
