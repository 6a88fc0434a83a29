import type { VNode } from "preact";
import type { WebErrorCode } from "../errors";
import { Layout, renderPage } from "./layout";
import { PATHS } from "./view-model";

/** The one-message pages of the install flow. */

export function MessagePage(props: {
  title: string;
  message: string;
  action?: { href: string; label: string };
}): VNode {
  return (
    <Layout title={props.title}>
      <h1>{props.title}</h1>
      <p>{props.message}</p>
      {props.action && (
        <a class="button" href={props.action.href}>
          {props.action.label}
        </a>
      )}
    </Layout>
  );
}

const STATE_MESSAGES: Record<WebErrorCode, string> = {
  malformed: "This sign-in link is not one Statuspilot made.",
  bad_signature: "This sign-in link is not one Statuspilot made.",
  unknown: "This sign-in link is not one Statuspilot made.",
  expired: "This sign-in link is more than 10 minutes old.",
  replayed: "This sign-in link was already used.",
};

/** A one-message page with its status; every one offers a way (back) in through /install. */
function messagePage<S extends number>(
  status: S,
  title: string,
  message: string,
  label: string,
): { status: S; html: string } {
  return {
    status,
    html: renderPage(
      <MessagePage title={title} message={message} action={{ href: PATHS.install, label }} />,
    ),
  };
}

/** The callback's answer to a bad, expired or replayed `state`: status 400. */
export const renderInstallStateErrorPage = (code: WebErrorCode): { status: 400; html: string } =>
  messagePage(
    400,
    "Sign-in could not finish",
    `${STATE_MESSAGES[code]} Nothing was changed. Start again to connect Statuspilot.`,
    "Start again",
  );

/** The callback's answer to `error=access_denied`: the person cancelled on the consent page. */
export const renderNothingInstalledPage = (): { status: 200; html: string } =>
  messagePage(
    200,
    "Nothing was installed",
    "You cancelled, so Statuspilot was not installed and has no access to your account.",
    "Install Statuspilot",
  );

/** After sign-out: this browser's session ended, nothing was deleted, and a way back in. */
export const renderSignedOutPage = (): { status: 200; html: string } =>
  messagePage(
    200,
    "Signed out",
    "You are signed out of Statuspilot in this browser. Nothing was deleted: your status keeps following your calendars. Sign in again to change your settings.",
    "Sign in again",
  );

/** Any other failure the person should read about (a service error during sign-in, …). */
export const renderErrorPage = (props: { status: number; title: string; message: string }) =>
  messagePage(props.status, props.title, props.message, "Start again");

const LINK_MESSAGES: Record<WebErrorCode, string> = {
  malformed: "This link is not one Statuspilot made.",
  bad_signature: "This link is not one Statuspilot made.",
  unknown: "Statuspilot knows no such link.",
  expired: "This link is more than 5 minutes old.",
  replayed: "This link was already used.",
};

/**
 * The answer to a Home tab settings link that signs nobody in (forged, expired, spent, or made
 * before a disconnect): the sign-in, never the settings. Status 400.
 */
export const renderSettingsLinkErrorPage = (
  code: WebErrorCode | "stale",
): { status: 400; html: string } =>
  messagePage(
    400,
    "Sign in to open your settings",
    `${code === "stale" ? "This link was made before you disconnected." : LINK_MESSAGES[code]} Open your settings again from Statuspilot's Home tab, or sign in.`,
    "Sign in",
  );
