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
 * The workspace with our app's event subscription, interactivity (when it has some) and OAuth
 * redirect pointed at this stack's handlers, whatever port they got: the stack's
 * `/oauth/callback` joins the app's `redirect_urls`, as a developer would add it to the app's
 * settings. The tokens
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
      interactivity?: Record<string, unknown>;
    };
    settings.event_subscriptions = {
      ...settings.event_subscriptions,
      request_url: `${handlersUrl}/service/events`,
    };
    if (settings.interactivity !== undefined) {
      settings.interactivity = {
        ...settings.interactivity,
        request_url: `${handlersUrl}/service/interactive`,
      };
    }
    app.manifest.settings = settings;
    const oauth = (app.manifest.oauth_config ?? {}) as { redirect_urls?: unknown };
    const redirects = Array.isArray(oauth.redirect_urls) ? oauth.redirect_urls : [];
    const ours = `${handlersUrl}/oauth/callback`;
    oauth.redirect_urls = redirects.includes(ours) ? redirects : [...redirects, ours];
    app.manifest.oauth_config = oauth;
  }
  return copy;
}

/**
 * The bot token the workspace gave our app (the demo's `xoxb-statuspilot-demo`), as an install
 * with bot scopes would hand it over: the stack keeps it for the team, so the Home tab and the
 * messages work for the users it registers. Undefined when the workspace gives the app none.
 */
export function botTokenOf(
  workspace: Workspace | undefined,
  appId: string | undefined,
): { team: string; token: string; botUser: string } | undefined {
  if (workspace === undefined || appId === undefined) return undefined;
  const bot = workspace.tokens.find(
    (t) => t.type === "bot" && t.app === appId && t.state === "active",
  );
  return bot === undefined
    ? undefined
    : { team: workspace.team.id, token: bot.token, botUser: bot.user };
}
