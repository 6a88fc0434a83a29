import { WebhookError } from "./errors";
import { constantTimeEqual } from "./signature";

/** Google push notification headers (a watch channel on a calendar). */
export interface GooglePush {
  channelId: string;
  token: string | undefined;
  resourceState: string;
  messageNumber: string | undefined;
}

/** `sync` is Google's handshake when a channel opens: acknowledge it, fetch nothing. */
export const isGoogleHandshake = (push: GooglePush): boolean => push.resourceState === "sync";

/** Checks the channel token that we chose when opening the channel. */
export function verifyChannelToken(expected: string | undefined, got: string | undefined): void {
  if (expected === undefined || got === undefined || !constantTimeEqual(expected, got)) {
    throw new WebhookError("bad_channel_token", "channel token does not match");
  }
}

/** Checks a Graph notification's `clientState` against the one stored with the subscription. */
export function verifyClientState(expected: string | undefined, got: string | undefined): void {
  if (expected === undefined || got === undefined || !constantTimeEqual(expected, got)) {
    throw new WebhookError("bad_client_state", "clientState does not match");
  }
}
