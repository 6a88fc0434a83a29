import { isChannelId, MAX_ID_LENGTH } from "#lib/core/ids";
import { WebhookError } from "#lib/http/errors";

/**
 * An id that admin PUT would refuse can name no binding: refused by its form, before any work.
 * Shared by the push hooks whose channel id arrives whole (a header, a path).
 */
export function requireChannelId(channelId: string): void {
  if (!isChannelId(channelId)) {
    throw new WebhookError(
      "unknown_channel",
      `no source is bound to this channel: channel ids are 1-${MAX_ID_LENGTH} characters`,
    );
  }
}
