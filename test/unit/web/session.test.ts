import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "#lib/core/clock";
import {
  cookieValues,
  isCurrentSession,
  SESSION_MAX_AGE_MS,
  SessionCookies,
} from "#lib/web/session";

// The rule: a session cookie is made only by this app (HMAC under its key), says who signed in
// and when, lasts 30 days, is HttpOnly, SameSite=Lax, Path=/, and Secure exactly over https.
// Anything else in a Cookie header is "no session", never an exception.

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const KEY = "s".repeat(32);
const DAY = 24 * 60 * 60_000;
const WHO = { team: "T0CONF", user: "U0MEMBER", epoch: 1_700_000_000_000 };

function setup(opts: { secure?: boolean; key?: string } = {}) {
  const clock = new ManualClock(T0);
  const cookies = new SessionCookies({ key: opts.key ?? KEY, clock, secure: opts.secure ?? false });
  return { clock, cookies };
}

/** `name=value` of a Set-Cookie header, as a browser would send it back. */
const sentBack = (setCookie: string) => setCookie.split(";")[0] ?? "";

const attributes = (setCookie: string) =>
  setCookie
    .split(";")
    .slice(1)
    .map((a) => a.trim());

describe("session cookie", () => {
  it("reads back the session it set: team, user, issue time and epoch", () => {
    // Prepare
    const { cookies } = setup();
    const { setCookie, session } = cookies.issue(WHO);
    // Act
    const read = cookies.read(`theme=dark; ${sentBack(setCookie)}; other=1`);
    // Assess
    expect(read).toEqual({ ok: true, session });
    expect(session).toMatchObject({ ...WHO, issuedAt: T0 });
    expect(session.sessionId).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it("reads API Gateway's cookies array as well as a Cookie header", () => {
    // Prepare
    const { cookies } = setup();
    const { setCookie, session } = cookies.issue(WHO);
    // Act
    const read = cookies.read(["a=b", sentBack(setCookie)]);
    // Assess
    expect(read).toEqual({ ok: true, session });
  });

  it("sets HttpOnly, SameSite=Lax, Path=/ and a 30-day Max-Age, without Secure over http", () => {
    // Prepare
    const { cookies } = setup({ secure: false });
    // Act
    const { setCookie } = cookies.issue(WHO);
    // Assess
    expect(setCookie.startsWith("statuspilot_session=")).toBe(true);
    expect(attributes(setCookie).sort()).toEqual(
      ["HttpOnly", "Max-Age=2592000", "Path=/", "SameSite=Lax"].sort(),
    );
  });

  it("adds Secure over https, under a __Host- name", () => {
    // Prepare
    const { cookies } = setup({ secure: true });
    // Act
    const { setCookie } = cookies.issue(WHO);
    const read = cookies.read(sentBack(setCookie));
    // Assess
    expect(setCookie.startsWith("__Host-statuspilot_session=")).toBe(true);
    expect(attributes(setCookie)).toContain("Secure");
    expect(read.ok).toBe(true);
  });

  it("clears with an empty value and Max-Age=0, keeping the same attributes", () => {
    // Act
    const cleared = setup({ secure: true }).cookies.clear();
    // Assess
    expect(cleared).toBe(
      "__Host-statuspilot_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure",
    );
  });

  it("honours a session until 30 days after sign-in, not from then on", () => {
    // Prepare
    const { cookies, clock } = setup();
    const cookie = sentBack(cookies.issue(WHO).setCookie);
    // Act
    clock.advance(30 * DAY - 1);
    const lastMs = cookies.read(cookie);
    clock.advance(1);
    const expired = cookies.read(cookie);
    // Assess
    expect(SESSION_MAX_AGE_MS).toBe(30 * DAY);
    expect(lastMs.ok).toBe(true);
    expect(expired).toEqual({ ok: false, reason: "expired" });
  });

  it("refuses a cookie signed with another key", () => {
    // Prepare
    const foreign = sentBack(setup({ key: "x".repeat(32) }).cookies.issue(WHO).setCookie);
    // Act
    const read = setup().cookies.read(foreign);
    // Assess
    expect(read).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("refuses a cookie whose payload was changed to another user, even re-encoded cleanly", () => {
    // Prepare
    const { cookies } = setup();
    const value = sentBack(cookies.issue(WHO).setCookie).split("=")[1] ?? "";
    const [version, body, mac] = value.split(".");
    const payload = JSON.parse(Buffer.from(body ?? "", "base64url").toString("utf8")) as unknown[];
    payload[1] = "U0ADMIN";
    const swapped = Buffer.from(JSON.stringify(payload)).toString("base64url");
    // Act
    const read = cookies.read(`statuspilot_session=${version}.${swapped}.${mac}`);
    // Assess
    expect(read).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("refuses a cookie forged with the right scheme but a guessed key", () => {
    // Prepare
    const { cookies } = setup();
    const body = Buffer.from(JSON.stringify(["T0CONF", "U0ADMIN", "A".repeat(22), T0, 0])).toString(
      "base64url",
    );
    const mac = createHmac("sha256", "guess".repeat(8))
      .update(`session:1.${body}`)
      .digest("base64url");
    // Act
    const read = cookies.read(`statuspilot_session=1.${body}.${mac}`);
    // Assess
    expect(read).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("answers no session for a payload under our key that is not a session", () => {
    // Prepare: signed with the right key and scheme, but not JSON, or JSON of the wrong shape.
    const { cookies } = setup();
    const signed = (payload: string) => {
      const body = Buffer.from(payload).toString("base64url");
      const mac = createHmac("sha256", KEY).update(`session:1.${body}`).digest("base64url");
      return `statuspilot_session=1.${body}.${mac}`;
    };
    // Act
    const reads = [
      signed("{not json"),
      signed(JSON.stringify({ team: "T0CONF" })),
      signed(JSON.stringify(["T0CONF", "<script>", "A".repeat(22), T0, 0])),
    ].map((c) => cookies.read(c));
    // Assess
    expect(reads).toEqual(reads.map(() => ({ ok: false, reason: "malformed" })));
  });

  it("tells a session of the user's current epoch from one of an earlier epoch", () => {
    // Prepare
    const { cookies } = setup();
    const { session } = cookies.issue(WHO);
    // Act / Assess
    expect(isCurrentSession(session, WHO.epoch)).toBe(true);
    expect(isCurrentSession(session, WHO.epoch + 1)).toBe(false);
  });

  it("answers no session for garbage, and never throws, whatever the header", () => {
    // Prepare
    const { cookies } = setup();
    const valid = sentBack(cookies.issue(WHO).setCookie);
    const samples = [
      undefined,
      null,
      "",
      ";;;",
      "statuspilot_session",
      "statuspilot_session=",
      "statuspilot_session=1..",
      `statuspilot_session=${"A".repeat(5000)}`,
      "statuspilot_session=%E0%A4%A",
      `${valid.slice(0, -2)}`,
    ];
    // Act
    const reads = samples.map((s) => cookies.read(s));
    // Assess
    for (const r of reads) expect(r.ok).toBe(false);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(fc.string())), (header) => {
        expect(cookies.read(header).ok).toBe(false);
      }),
    );
  });

  it("takes the first valid cookie of its name when a header carries several", () => {
    // Prepare
    const { cookies } = setup();
    const { setCookie, session } = cookies.issue(WHO);
    // Act
    const read = cookies.read(`statuspilot_session=junk; ${sentBack(setCookie)}`);
    // Assess
    expect(read).toEqual({ ok: true, session });
  });

  it("splits a Cookie header by its rules: names exact, values trimmed, quotes removed", () => {
    // Act / Assess
    expect(cookieValues(' a=1; xa=2;a = 3 ; a="4"; b', "a")).toEqual(["1", "3", "4"]);
  });
});
