/**
 * Where a state-changing form POST came from, by the headers browsers set and pages cannot:
 * defence in depth beside the CSRF token, after OWASP's CSRF Prevention Cheat Sheet.
 *
 * - Fetch Metadata, when sent: `Sec-Fetch-Site` must be `same-origin` (one of our own pages)
 *   or `none` (the person's own action). `same-site` is refused too: a sibling subdomain is
 *   not this app.
 * - `Origin`, when sent: it must be our origin exactly. `null` (sent from sandboxed frames,
 *   data: and file: pages, and across redirects) is refused.
 * - Without `Origin`, a `Referer` must be of our origin.
 * - A request with none of them (an old browser, a privacy proxy) is left to the CSRF token,
 *   which OWASP accepts when a token is the primary defence, as it is here.
 *
 * Our pages send `Referrer-Policy: same-origin`: under `no-referrer` a browser sends
 * `Origin: null` even for a same-origin form, which would be refused here.
 */

/** Why a form is refused: a code for the log, and words for the person. */
export interface ForeignForm {
  reason: "cross_site_fetch" | "foreign_origin" | "opaque_origin" | "foreign_referer";
  message: string;
}

/** The Sec-Fetch-Site values the Fetch Metadata standard defines. */
const FETCH_SITES = new Set(["same-origin", "same-site", "cross-site", "none"]);

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

/**
 * Why a POST with these (lower-cased) headers did not come from one of our pages at `ownOrigin`
 * (e.g. "https://statuspilot.example"), or undefined when nothing says it came from elsewhere.
 */
export function foreignForm(
  headers: Readonly<Record<string, string | undefined>>,
  ownOrigin: string,
): ForeignForm | undefined {
  const site = headers["sec-fetch-site"]?.trim().toLowerCase();
  if (site !== undefined && site !== "same-origin" && site !== "none") {
    const said = FETCH_SITES.has(site) ? site : "an unknown value";
    return {
      reason: "cross_site_fetch",
      message: `Your browser says this form was sent from another site (Sec-Fetch-Site: ${said}).`,
    };
  }
  const origin = headers.origin?.trim();
  if (origin !== undefined) {
    if (origin === "null") {
      return {
        reason: "opaque_origin",
        message: "Your browser sent this form from a page with no origin (Origin: null).",
      };
    }
    if (originOf(origin) !== ownOrigin) {
      return {
        reason: "foreign_origin",
        message: "Your browser says this form was sent from another site (its Origin is not ours).",
      };
    }
    return undefined;
  }
  const referer = headers.referer?.trim();
  if (referer !== undefined && originOf(referer) !== ownOrigin) {
    return {
      reason: "foreign_referer",
      message: "Your browser says this form was sent from a page of another site (Referer).",
    };
  }
  return undefined;
}
