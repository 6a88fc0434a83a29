/**
 * Largest calendar body read, in bytes, after any Content-Encoding is undone: the sync's cap,
 * and the check's of a new address, so what the check accepts the sync reads.
 */
export const MAX_FEED_BYTES = 10 * 1024 * 1024;

/** A feed body that passed its byte cap: reading stopped there. */
export class FeedBodyTooLarge extends Error {
  override name = "FeedBodyTooLarge";
}

/** Whether the body arrives as sent: no Content-Encoding (or `identity`). */
const unencoded = (response: Response): boolean => {
  const encoding = response.headers.get("content-encoding")?.trim().toLowerCase();
  return encoding === undefined || encoding === "" || encoding === "identity";
};

/**
 * Reads a feed's body as UTF-8 text under a byte cap, as the sync and the check of a new address
 * both do. The bytes are counted as they arrive after `fetch` has undone any Content-Encoding, so
 * a small gzip that inflates to gigabytes stops at the cap like a plain body, and reading stops
 * (`abort`, the stream cancelled) as soon as it passes: a huge body never sits in memory. A
 * Content-Length over the cap stops it before any read, when it counts the same bytes.
 */
export async function readBodyCapped(
  response: Response,
  maxBytes: number,
  abort: () => void,
): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (unencoded(response) && Number.isFinite(declared) && declared > maxBytes) {
    abort();
    throw new FeedBodyTooLarge(`declared ${declared} bytes`);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      abort();
      await reader.cancel().catch(() => undefined);
      throw new FeedBodyTooLarge(`more than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
