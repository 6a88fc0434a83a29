/**
 * DNS rebinding: a page of another site that points its own name at 127.0.0.1 reaches a server
 * on the loopback from the person's browser, but its requests still carry its own name as Host.
 * The local control surfaces (the stack's `/_local/*`, the emulators' control and state
 * endpoints, the ICS server's feed uploads) answer only requests that name this machine by a
 * loopback name; the APIs the emulators stand in for answer any Host, as the real ones do.
 */

/** True when a Host header names a loopback host: `127.0.0.1`, `localhost` or `[::1]`, any port. */
export const isLoopbackHost = (host: string | undefined): boolean =>
  host !== undefined && /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$/i.test(host);

/** The body of the 403 that refuses a control request naming another host. */
export const HOST_NOT_LOOPBACK = {
  error: "host_not_loopback",
  message:
    "this control surface answers only requests addressed to 127.0.0.1, localhost or [::1] (with any port); this one named another host, as a page on another site reaching it through DNS rebinding would",
} as const;
