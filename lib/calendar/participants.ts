/**
 * Who takes part in an event and how: what the rules' `skipNoGuests` and `online` conditions
 * read, the same way for every provider.
 */

/**
 * A video-call address: Zoom (and ZoomGov), Google Meet, Microsoft Teams, Webex or Whereby, with
 * or without its scheme, on the service's host or a subdomain of it (us02web.zoom.us,
 * acme.webex.com); not a path or an address that merely contains one (example.com/zoom.us,
 * help@zoom.us).
 */
const VIDEO_CALL =
  /(?:https?:\/\/|^|[^a-z0-9./@-])(?:[a-z0-9-]+\.)*(?:zoom\.us|zoomgov\.com|meet\.google\.com|teams\.microsoft\.com|teams\.live\.com|webex\.com|whereby\.com)(?:[/:?#]|$)/i;

/** Whether any of the texts holds a video-call address. */
export const hasVideoLink = (...texts: ReadonlyArray<string | undefined>): boolean =>
  texts.some((t) => t !== undefined && VIDEO_CALL.test(t));

/**
 * How many of the people in an event are not the user: distinct addresses (compared in lower
 * case) not among `own`. When `own` is empty and the user could be among them unflagged
 * (`selfMayBeListed`), one of them is taken to be the user.
 */
export function guestCount(
  addresses: Iterable<string>,
  own: ReadonlySet<string>,
  selfMayBeListed: boolean,
): number {
  const others = new Set<string>();
  for (const a of addresses) {
    const address = a.trim().toLowerCase();
    if (address !== "" && !own.has(address)) others.add(address);
  }
  return own.size === 0 && selfMayBeListed ? Math.max(0, others.size - 1) : others.size;
}
