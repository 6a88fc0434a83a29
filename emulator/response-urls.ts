/**
 * The `response_url` of a `block_actions` payload from a message (an extension beyond the spec,
 * after the platform's "Handling user interaction" guide): the app may POST JSON to it "up to
 * five times within thirty minutes" to post into the conversation again, replace the message
 * (`replace_original`) or delete it (`delete_original`). Kept in memory only, like trigger ids.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "#lib/core/clock";
import { checkMessageBlocks } from "./blockkit";
import type { DirectMessage } from "./home-state";
import type { EmulatorModel } from "./model";
import { readSmallBody, sendJson } from "./oauth-page";

export const RESPONSE_URL_PREFIX = "/actions/";
export const RESPONSE_URL_USES = 5;
export const RESPONSE_URL_LIFETIME_MS = 30 * 60_000;

interface Grant {
  channel: string;
  ts: string;
  issuedAt: number;
  uses: number;
}

type Json = Record<string, unknown>;

export class ResponseUrls {
  private readonly grants = new Map<string, Grant>();
  private seq = 0;

  constructor(
    private readonly opts: {
      model: EmulatorModel;
      clock: Clock;
      baseUrl: () => string;
      bodyTimeoutMs: number;
    },
  ) {}

  /** A new URL for the message `ts` in `channel`. */
  issue(channel: string, ts: string): string {
    this.seq += 1;
    const path = `${this.opts.model.team.id}/${this.seq}/${randomBytes(12).toString("hex")}`;
    this.grants.set(path, { channel, ts, issuedAt: this.opts.clock.now(), uses: 0 });
    return `${this.opts.baseUrl()}${RESPONSE_URL_PREFIX}${path}`;
  }

  handlesPath(path: string): boolean {
    return path.startsWith(RESPONSE_URL_PREFIX);
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (req.method !== "POST") return sendJson(res, 405, { ok: false, error: "use POST" });
    const grant = this.grants.get(path.slice(RESPONSE_URL_PREFIX.length));
    const body = await readSmallBody(req, this.opts.bodyTimeoutMs);
    if (res.destroyed) return;
    if (!grant) return sendJson(res, 404, { ok: false, error: "no_such_url" });
    if (this.opts.clock.now() >= grant.issuedAt + RESPONSE_URL_LIFETIME_MS)
      return sendJson(res, 404, { ok: false, error: "expired_url" });
    if (grant.uses >= RESPONSE_URL_USES)
      return sendJson(res, 404, { ok: false, error: "used_url" });
    if (!body.ok) return sendJson(res, 400, { ok: false, error: "invalid_payload" });
    let doc: unknown;
    try {
      doc = JSON.parse(body.text);
    } catch {
      return sendJson(res, 400, { ok: false, error: "invalid_payload" });
    }
    if (doc === null || typeof doc !== "object" || Array.isArray(doc))
      return sendJson(res, 400, { ok: false, error: "invalid_payload" });
    const answer = this.apply(grant, doc as Json);
    if (answer.ok) grant.uses += 1;
    sendJson(res, answer.ok ? 200 : 400, answer);
  }

  private apply(grant: Grant, doc: Json): Json {
    const { home } = this.opts.model;
    const original = home.message(grant.channel, grant.ts);
    if (doc.delete_original === true) {
      if (!original) return { ok: false, error: "message_not_found" };
      home.removeMessage(original);
      return { ok: true };
    }
    const text = typeof doc.text === "string" ? doc.text : "";
    const blocks = Array.isArray(doc.blocks) && doc.blocks.length > 0 ? doc.blocks : undefined;
    if (text === "" && blocks === undefined) return { ok: false, error: "no_text" };
    if (blocks && checkMessageBlocks(blocks).length > 0)
      return { ok: false, error: "invalid_blocks" };
    const content = {
      text,
      ...(blocks === undefined ? {} : { blocks: structuredClone(blocks) as Json[] }),
    };
    if (doc.replace_original === true) {
      if (!original) return { ok: false, error: "message_not_found" };
      const replaced: DirectMessage = { ...withoutContent(original), ...content };
      if (blocks) replaced.storedBlocks = structuredClone(blocks) as Json[];
      home.replaceMessage(original, replaced);
      return { ok: true };
    }
    const any = original ?? home.allMessages().find((m) => m.channel === grant.channel);
    if (!any) return { ok: false, error: "channel_not_found" };
    home.addMessage({
      ...withoutContent(any),
      ...content,
      ...(blocks ? { storedBlocks: structuredClone(blocks) as Json[] } : {}),
      ts: home.nextTs(this.opts.clock.now()),
    });
    return { ok: true };
  }
}

function withoutContent(m: DirectMessage): DirectMessage {
  const { blocks: _b, storedBlocks: _s, ...rest } = m;
  return rest;
}
