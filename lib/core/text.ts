/** The service's limit on `status_text`, in Unicode code points. */
export const STATUS_TEXT_LIMIT = 100;

const ELLIPSIS = "…";

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

// Built on first use: constructing a segmenter loads ICU data, about 10 ms of every cold start.
let segmenter: Intl.Segmenter | undefined;
const graphemes = (): Intl.Segmenter => {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return segmenter;
};

/**
 * Cuts text to at most `limit` code points, ending with "…" when cut. The cut falls between
 * grapheme clusters, so an emoji ZWJ sequence, a flag or a surrogate pair is never split.
 */
export function truncateText(text: string, limit = STATUS_TEXT_LIMIT): string {
  if (codePoints(text) <= limit) return text;
  const budget = limit - codePoints(ELLIPSIS);
  let out = "";
  let used = 0;
  for (const { segment } of graphemes().segment(text)) {
    const size = codePoints(segment);
    if (used + size > budget) break;
    out += segment;
    used += size;
  }
  return `${out.trimEnd()}${ELLIPSIS}`;
}

export const codePointLength = codePoints;
