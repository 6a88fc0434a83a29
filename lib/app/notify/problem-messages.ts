import type { DirectMessage, ViewBlock } from "#lib/core/notifier";
import type { Problem } from "#lib/core/problems";
import type { UserRecord } from "#lib/core/records";
import { FAILING_NOTICE_MS, sourceErrorWords } from "#lib/core/source-health";
import { calendarLabel } from "./calendar-health";
import { button, escapeText, type HomeLinks } from "./home-blocks";

/**
 * The direct message for each problem: what broke, in words, and the button that fixes it
 * (Reconnect, or the settings page). Its links never expire: a message is read hours later.
 */

/** Where a message's buttons go: `settings` is the plain settings page (sign-in if need be). */
export type MessageLinks = Pick<HomeLinks, "install" | "reconnect"> & { settings?: string };

const HOURS = Math.round(FAILING_NOTICE_MS / 3_600_000);

const TURN_OFF = "You can turn these messages off in your settings.";

function message(text: string, fix: ViewBlock | undefined): DirectMessage {
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: escapeText(text) } },
      ...(fix !== undefined ? [{ type: "actions", elements: [fix] }] : []),
      { type: "context", elements: [{ type: "mrkdwn", text: TURN_OFF }] },
    ],
  };
}

export function problemMessage(
  problem: Problem,
  user: Pick<UserRecord, "sources">,
  links: MessageLinks,
): DirectMessage {
  const index = user.sources.findIndex((s) => s.id === problem.sourceId);
  const source = user.sources[index];
  const name =
    source === undefined ? "a calendar" : `"${calendarLabel(source, index).slice(0, 150)}"`;
  const settings =
    links.settings !== undefined
      ? button("open_settings", "Open settings", { url: links.settings })
      : undefined;
  switch (problem.kind) {
    case "service_token":
      return message(
        "Statuspilot stopped setting your status: its access to your account was revoked or has expired. Reconnect to start again.",
        links.install !== undefined
          ? button("reconnect", "Reconnect", { url: links.install, style: "primary" })
          : settings,
      );
    case "calendar_grant": {
      const url = source !== undefined ? links.reconnect(source.kind) : undefined;
      return message(
        `Statuspilot can no longer read your calendar ${name}: its account refused the access it had given. Your status no longer follows it; connect it again to resume.`,
        url !== undefined ? button("reconnect", "Reconnect", { url, style: "primary" }) : settings,
      );
    }
    case "calendar_failing": {
      const error = source?.health?.error;
      const why = error !== undefined ? ` ${sourceErrorWords(error)}` : "";
      return message(
        `Statuspilot has not been able to read your calendar ${name} for ${HOURS} hours.${why} Your status no longer follows its changes: check it in your settings, or remove it and add it again.`,
        settings,
      );
    }
  }
}
