import type { OutOfOfficeEntry } from "../../lib/app/contracts";

/** One line per entry, in the user's zone: `id: 2026-01-02 09:00 → 2026-01-05 00:00 "text"`. */
export function formatEntry(entry: OutOfOfficeEntry, zone: string): string {
  const fmt = new Intl.DateTimeFormat("sv-SE", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
  const at = (ms: number) => fmt.format(new Date(ms));
  return `${entry.id}: ${at(entry.start)} → ${at(entry.end)} ${entry.emoji} "${entry.text}"`;
}
