import { createHmac, randomBytes } from "node:crypto";
import { constantTimeEqual } from "./signature";

/**
 * Channel tokens are derived, not stored: the HMAC of the channel id under the service's signing
 * secret, with a label of their own so no other use of that secret yields the same bytes. A hook
 * checks a push's token (Google `X-Goog-Channel-Token`, Graph `clientState`, the key of the
 * generic hook's v0 signature) before any read or decrypt, so an unauthenticated flood costs
 * neither DynamoDB nor KMS requests, and an unknown id answers exactly like a wrong token.
 */
const CHANNEL_TOKEN_LABEL = "channel-token:";

/** The token a channel's pushes must carry: 43 base64url characters (256 bits). */
export function channelToken(signingSecret: string, channelId: string): string {
  return createHmac("sha256", signingSecret)
    .update(`${CHANNEL_TOKEN_LABEL}${channelId}`)
    .digest("base64url");
}

/** True when `got` is the channel's token; time depends only on the lengths compared. */
export function channelTokenMatches(
  signingSecret: string,
  channelId: string,
  got: string | undefined,
): boolean {
  if (got === undefined) return false;
  return constantTimeEqual(channelToken(signingSecret, channelId), got);
}

/** A channel id nobody can guess: 128 random bits as 32 hex characters (URL- and key-safe). */
export const newChannelId = (): string => randomBytes(16).toString("hex");
