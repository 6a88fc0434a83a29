import { randomBytes } from "node:crypto";
import { cookieValues } from "./session";

/**
 * The browser binding of the install state: `/install` sets this short-lived cookie with a
 * random value and signs the state with the same value (OAuthStates.issue(binding)); the
 * callback reads it back and passes it to OAuthStates.consume. A state is then good only in
 * the browser that started the install, so nobody can finish their own install in another
 * person's browser. SameSite=Lax still sends it on the service's top-level redirect back.
 */

export const INSTALL_BINDING_COOKIE = "statuspilot_install";
export const SECURE_INSTALL_BINDING_COOKIE = `__Host-${INSTALL_BINDING_COOKIE}`;

/** As long as the state it binds. */
const MAX_AGE_S = 10 * 60;

const cookieName = (secure: boolean) =>
  secure ? SECURE_INSTALL_BINDING_COOKIE : INSTALL_BINDING_COOKIE;

/** A fresh binding: 128 random bits, base64url. */
export const newInstallBinding = (random: (size: number) => Uint8Array = randomBytes): string =>
  Buffer.from(random(16)).toString("base64url");

/** The `Set-Cookie` of `/install`; `secure` when served over https. */
export function installBindingSetCookie(binding: string, secure: boolean): string {
  const attributes = [`${cookieName(secure)}=${binding}`, "Path=/", `Max-Age=${MAX_AGE_S}`];
  attributes.push("HttpOnly", "SameSite=Lax");
  if (secure) attributes.push("Secure");
  return attributes.join("; ");
}

/** The `Set-Cookie` of the callback, once the binding has served. */
export function installBindingClearCookie(secure: boolean): string {
  const attributes = [`${cookieName(secure)}=`, "Path=/", "Max-Age=0", "HttpOnly", "SameSite=Lax"];
  if (secure) attributes.push("Secure");
  return attributes.join("; ");
}

/** The binding the browser sent back, when it sent one of the right form. */
export function readInstallBinding(
  cookies: string | readonly string[] | undefined | null,
  secure: boolean,
): string | undefined {
  return cookieValues(cookies, cookieName(secure)).find((v) => /^[A-Za-z0-9_-]{22}$/.test(v));
}
