import type { SettingsView } from "#lib/web/pages/view-model";

// A settings page's data for a person in Berlin on Monday 3 March 2025 at 10:15 (UTC+1).
export const NOW = Date.UTC(2025, 2, 3, 9, 15, 0);
const at = (h: number, m = 0) => Date.UTC(2025, 2, 3, h - 1, m, 0);

export function settingsView(over: Partial<SettingsView> = {}): SettingsView {
  return {
    csrfToken: "csrf-token-of-this-session",
    now: NOW,
    user: { id: "U0MEMBER", team: "T0CONF", name: "Mia", tz: "Europe/Berlin" },
    connection: "connected",
    calendars: [
      { id: "src-1", label: "Work calendar", lastReadAt: at(10, 0) },
      { id: "src-2", label: "Team rota", problem: "The address answered 404 Not Found." },
    ],
    today: {
      blocks: [
        {
          start: at(10),
          end: at(11),
          text: "In a meeting",
          emoji: ":spiral_calendar_pad:",
          kind: "meeting",
        },
        { start: at(14), end: at(16), text: "Focus time", emoji: ":headphones:", kind: "focus" },
      ],
      current: { text: "In a meeting", emoji: ":spiral_calendar_pad:", until: at(11) },
      next: { at: at(11) },
    },
    rules: {
      kinds: {
        meeting: { text: "In a meeting", emoji: ":spiral_calendar_pad:", keywords: [] },
        focus: { text: "Focus time", emoji: ":headphones:", keywords: ["focus", "deep work"] },
        ooo: { text: "Out of office", emoji: ":palm_tree:", keywords: ["ooo", "vacation"] },
      },
      showTitles: false,
      skipTentative: true,
    },
    paused: false,
    ooo: [
      {
        id: "ooo-1",
        start: Date.UTC(2025, 2, 9, 23),
        end: Date.UTC(2025, 2, 14, 23),
        message: "Skiing",
      },
    ],
    ...over,
  };
}
