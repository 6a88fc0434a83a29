/**
 * The emulator's call log (`GET /_emulator/calls`, and the CLI's JSON lines): one record per API
 * request, with its parameters. Whole tokens and secrets never enter it.
 */
import type { EmulatorModel } from "./model";

export interface CallRecord {
  seq: number;
  /** Epoch ms on the emulator's clock. */
  at: number;
  method: string;
  /** The token that authenticated the call, redacted by `redactToken`; null when none was sent. */
  token: string | null;
  /**
   * The app the token was issued to (a token an app got by installing), so an app's calls can
   * be told from the person's own calls with their own token; null for a token of no app.
   */
  app: string | null;
  caller: string | null;
  user: string | null;
  outcome: string;
  httpStatus: number;
  /**
   * The request's parameters as parsed (a form's `profile` stays the URL-decoded JSON string),
   * tokens and secrets redacted; null when the body never arrived or could not be parsed.
   */
  params: Record<string, unknown> | null;
}

/** What a secret (a signing secret, a password, a signature) becomes in the log. */
export const REDACTED_SECRET = "[redacted]";

/**
 * A token as the log shows it: its first six characters and `…` (`xoxp-m…`). A token shorter
 * than twelve characters shows only its first half, so no token is ever shown whole.
 */
export const redactToken = (token: string | undefined): string | null =>
  token === undefined || token === ""
    ? null
    : `${token.slice(0, Math.min(6, Math.floor(token.length / 2)))}…`;

// An OAuth `code` is a one-use credential until exchanged: shown like a token.
const TOKEN_KEY = /token|^code$/i;
const SECRET_KEY = /secret|signature|password|authorization|api[-_]?key|client[-_]?state/i;
/** The shape of the platform's tokens, so one the workspace does not know is caught too. */
const TOKEN_SHAPE = "xox[a-z]-[A-Za-z0-9-]+";
/** Shorter known values are not searched for inside text: they would mangle ordinary words. */
const MIN_SEARCHED_LENGTH = 4;

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Redacts a request's parameters against every token and secret of the workspace. */
export class ParamRedactor {
  private readonly secrets = new Set<string>();
  private readonly pattern: RegExp;

  constructor(model: EmulatorModel) {
    for (const { app } of model.apps.values()) {
      this.secrets.add(app.signing_secret);
      if (app.verification_token !== undefined) this.secrets.add(app.verification_token);
      if (app.client_secret !== undefined) this.secrets.add(app.client_secret);
    }
    const known = [...model.tokens.keys(), ...this.secrets]
      .filter((s) => s.length >= MIN_SEARCHED_LENGTH)
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp);
    // One pass, longest first: a redacted token is never matched again.
    this.pattern = new RegExp([...known, TOKEN_SHAPE].join("|"), "g");
  }

  /** Any string: known tokens and token-shaped words redacted, known secrets replaced. */
  text(s: string): string {
    return s.replace(this.pattern, (found) =>
      this.secrets.has(found) ? REDACTED_SECRET : (redactToken(found) ?? ""),
    );
  }

  params(args: Record<string, unknown>): Record<string, unknown> {
    return this.object(args);
  }

  private object(o: Record<string, unknown>): Record<string, unknown> {
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [this.text(k), this.value(k, v)]));
  }

  private value(key: string, v: unknown): unknown {
    if (Array.isArray(v)) return v.map((item) => this.value(key, item));
    if (v !== null && typeof v === "object") return this.object(v as Record<string, unknown>);
    if (v === null || v === undefined) return v;
    if (SECRET_KEY.test(key)) return REDACTED_SECRET;
    if (TOKEN_KEY.test(key) && typeof v === "string" && !this.secrets.has(v))
      return redactToken(v) ?? "";
    if (TOKEN_KEY.test(key)) return REDACTED_SECRET;
    return typeof v === "string" ? this.text(v) : v;
  }
}
