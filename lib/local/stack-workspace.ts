import type { Workspace } from "#emulator/server";

/** Finds the app whose events come to us: the one subscribed at a `/service/events` URL. */
export function ourApp(workspace: Workspace, appId?: string) {
  const candidates = workspace.apps.filter((a) => {
    const url = (
      a.manifest.settings as { event_subscriptions?: { request_url?: unknown } } | undefined
    )?.event_subscriptions?.request_url;
    return typeof url === "string" && url.endsWith("/service/events");
  });
  return (
    candidates.find((a) => appId === undefined || a.id === appId) ??
    workspace.apps.find((a) => a.id === appId)
  );
}

/**
 * The workspace with our app's event subscription and OAuth redirect pointed at this stack's
 * handlers, whatever port they got: the stack's `/oauth/callback` joins the app's
 * `redirect_urls`, as a developer would add it to the app's settings. The tokens
 * the users gave Statuspilot (`ourTokens`) are issued to our app, as an install would, so the
 * call log tells our calls from the user's own; a token already of an app keeps it.
 */
export function pointEventsAt(
  workspace: Workspace,
  appId: string,
  handlersUrl: string,
  ourTokens: ReadonlySet<string>,
): Workspace {
  const copy = structuredClone(workspace);
  for (const token of copy.tokens) {
    if (ourTokens.has(token.token) && token.app === undefined) token.app = appId;
  }
  for (const app of copy.apps) {
    if (app.id !== appId) continue;
    const settings = (app.manifest.settings ?? {}) as {
      event_subscriptions?: Record<string, unknown>;
    };
    settings.event_subscriptions = {
      ...settings.event_subscriptions,
      request_url: `${handlersUrl}/service/events`,
    };
    app.manifest.settings = settings;
    const oauth = (app.manifest.oauth_config ?? {}) as { redirect_urls?: unknown };
    const redirects = Array.isArray(oauth.redirect_urls) ? oauth.redirect_urls : [];
    const ours = `${handlersUrl}/oauth/callback`;
    oauth.redirect_urls = redirects.includes(ours) ? redirects : [...redirects, ours];
    app.manifest.oauth_config = oauth;
  }
  return copy;
}
