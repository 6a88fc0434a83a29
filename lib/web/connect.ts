import type { Session } from "./session";

/**
 * The calendar connect flow's addresses and state binding. `/connect/<provider>` is reached
 * from a signed-in settings page; its OAuth `state` is the install flow's signed, single-use
 * state (oauth-state.ts), bound to the session that asked, so a state issued to one person (or
 * to another provider's flow) is refused at another's callback.
 */
export const connectPath = (provider: string): string => `/connect/${provider}`;
export const connectCallbackPath = (provider: string): string => `/connect/${provider}/callback`;

/** What the state is bound to: this provider's flow, for this very session (its random id). */
export const connectBinding = (provider: string, session: Session): string =>
  `connect:${provider}:${session.team}:${session.user}:${session.sessionId}`;
