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
  expired: "This sign-in link is more than 10 minutes old.",
  replayed: "This sign-in link was already used.",
};

/** The callback's answer to a bad, expired or replayed `state`: status 400. */
export function renderInstallStateErrorPage(code: WebErrorCode): { status: 400; html: string } {
  return {
    status: 400,
    html: renderPage(
      <MessagePage
        title="Sign-in could not finish"
        message={`${STATE_MESSAGES[code]} Nothing was changed. Start again to connect Statuspilot.`}
        action={{ href: PATHS.install, label: "Start again" }}
      />,
    ),
  };
}

/** The callback's answer to `error=access_denied`: the person cancelled on the consent page. */
export function renderNothingInstalledPage(): { status: 200; html: string } {
  return {
    status: 200,
    html: renderPage(
      <MessagePage
        title="Nothing was installed"
        message="You cancelled, so Statuspilot was not installed and has no access to your account."
        action={{ href: PATHS.install, label: "Install Statuspilot" }}
      />,
    ),
  };
}

/** Any other failure the person should read about (a service error during sign-in, …). */
export function renderErrorPage(props: { status: number; title: string; message: string }): {
  status: number;
  html: string;
} {
  return {
    status: props.status,
    html: renderPage(
      <MessagePage
        title={props.title}
        message={props.message}
        action={{ href: PATHS.install, label: "Start again" }}
      />,
    ),
  };
}
