import { describe, expect, it } from "vitest";
import { ManualClock } from "#lib/core/clock";
import { CsrfTokens } from "#lib/web/csrf";
import { type Session, SessionCookies } from "#lib/web/session";

// The rule: a CSRF token is good for the one session it was made for (its user, sign-in and
// epoch) and under this app's key only; anything else, or nothing, is refused.

const KEY = "c".repeat(32);
const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);

function signIn(user = "U0MEMBER", epoch = 1): Session {
  const cookies = new SessionCookies({ key: KEY, clock: new ManualClock(T0), secure: false });
  return cookies.issue({ team: "T0CONF", user, epoch }).session;
}

describe("CSRF tokens", () => {
  it("accepts the session's own token", () => {
    // Prepare
    const csrf = new CsrfTokens({ key: KEY });
    const session = signIn();
    // Act / Assess
    expect(csrf.verify(session, csrf.tokenFor(session))).toBe(true);
  });

  it("refuses a token of another user's session", () => {
    // Prepare
    const csrf = new CsrfTokens({ key: KEY });
    const mine = signIn("U0MEMBER");
    const theirs = signIn("U0MEMBER2");
    // Act / Assess
    expect(csrf.verify(mine, csrf.tokenFor(theirs))).toBe(false);
  });

  it("binds the token to the user, not to the session id alone", () => {
    // Prepare
    const csrf = new CsrfTokens({ key: KEY });
    const mine = signIn("U0MEMBER");
    // Act / Assess
    expect(csrf.verify({ ...mine, user: "U0MEMBER2" }, csrf.tokenFor(mine))).toBe(false);
    expect(csrf.verify({ ...mine, team: "T0OTHER" }, csrf.tokenFor(mine))).toBe(false);
  });

  it("refuses a token of an earlier sign-in of the same user", () => {
    // Prepare
    const csrf = new CsrfTokens({ key: KEY });
    const earlier = signIn();
    const now = signIn();
    // Act / Assess
    expect(csrf.verify(now, csrf.tokenFor(earlier))).toBe(false);
  });

  it("refuses a token from before the epoch moved (a disconnect)", () => {
    // Prepare
    const csrf = new CsrfTokens({ key: KEY });
    const session = signIn("U0MEMBER", 1);
    // Act / Assess
    expect(csrf.verify({ ...session, epoch: 2 }, csrf.tokenFor(session))).toBe(false);
  });

  it("refuses a token made under another key", () => {
    // Prepare
    const session = signIn();
    const foreign = new CsrfTokens({ key: "d".repeat(32) }).tokenFor(session);
    // Act / Assess
    expect(new CsrfTokens({ key: KEY }).verify(session, foreign)).toBe(false);
  });

  it("refuses a missing, empty, altered or non-string token", () => {
    // Prepare
    const csrf = new CsrfTokens({ key: KEY });
    const session = signIn();
    const token = csrf.tokenFor(session);
    const altered = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    // Act
    const results = [undefined, "", altered, `${token}x`, token.slice(1), [token], 42].map((t) =>
      csrf.verify(session, t),
    );
    // Assess
    expect(results.every((r) => r === false)).toBe(true);
  });

  it("makes a form-safe token", () => {
    // Act
    const token = new CsrfTokens({ key: KEY }).tokenFor(signIn());
    // Assess
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
