/**
 * Block Kit as the platform checks it (its public Block Kit reference: blocks, block elements,
 * composition objects, and the surface limits: 100 blocks in a Home tab, 50 in a message). A
 * subset is supported: the blocks `section`, `header`, `divider`, `context`, `actions`, `image`
 * (and `markdown` in messages), the elements `button` and `image`. Anything else is refused with
 * a problem that says so, rather than passed unchecked. Lengths count characters (code points).
 */
import { createHash } from "node:crypto";

export const BLOCK_KIT_LIMITS = {
  homeBlocks: 100,
  messageBlocks: 50,
  blockId: 255,
  actionId: 255,
  text: 3000,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  url: 3000,
  accessibilityLabel: 75,
  imageUrl: 3000,
  altText: 2000,
  imageTitle: 2000,
  markdownText: 12_000,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  privateMetadata: 3000,
  callbackId: 255,
  externalId: 255,
} as const;

const L = BLOCK_KIT_LIMITS;

export type Surface = "home" | "message";

/** One refusal: where (a JSON pointer into the request) and why, in the platform's words. */
export interface BlockProblem {
  pointer: string;
  message: string;
}

/** The platform's rendering of a problem in `response_metadata.messages`. */
export const problemText = (p: BlockProblem): string =>
  `[ERROR] ${p.message} [json-pointer:${p.pointer}]`;

type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json =>
  v !== null && typeof v === "object" && !Array.isArray(v);

const chars = (s: string): number => [...s].length;

const BLOCKS: Record<Surface, readonly string[]> = {
  home: ["section", "header", "divider", "context", "actions", "image"],
  message: ["section", "header", "divider", "context", "actions", "image", "markdown"],
};

class Check {
  readonly problems: BlockProblem[] = [];

  add(pointer: string, message: string): void {
    this.problems.push({ pointer, message });
  }

  string(
    obj: Json,
    key: string,
    at: string,
    opts: { max: number; required?: boolean },
  ): string | undefined {
    const v = obj[key];
    if (v === undefined) {
      if (opts.required) this.add(at, `missing required field: ${key}`);
      return undefined;
    }
    if (typeof v !== "string") {
      this.add(`${at}/${key}`, "must provide a string");
      return undefined;
    }
    if (opts.required && v === "") this.add(`${at}/${key}`, "must be more than 0 characters");
    if (chars(v) > opts.max)
      this.add(`${at}/${key}`, `must be less than ${opts.max + 1} characters`);
    return v;
  }

  boolean(obj: Json, key: string, at: string): void {
    if (obj[key] !== undefined && typeof obj[key] !== "boolean")
      this.add(`${at}/${key}`, "must provide a boolean");
  }

  oneOf(obj: Json, key: string, at: string, values: readonly string[]): void {
    const v = obj[key];
    if (v !== undefined && (typeof v !== "string" || !values.includes(v)))
      this.add(`${at}/${key}`, "must be a valid enum value");
  }

  /** A text composition object: `plain_text` (or `mrkdwn` unless `plain`), 1..max characters. */
  text(
    obj: Json,
    key: string,
    at: string,
    opts: { max: number; plain?: boolean; required?: boolean },
  ) {
    const v = obj[key];
    const p = `${at}/${key}`;
    if (v === undefined) {
      if (opts.required) this.add(at, `missing required field: ${key}`);
      return;
    }
    this.textObject(v, p, opts);
  }

  textObject(v: unknown, p: string, opts: { max: number; plain?: boolean }) {
    if (!isObject(v)) return this.add(p, "must provide an object");
    const types = opts.plain ? ["plain_text"] : ["plain_text", "mrkdwn"];
    if (v.type === undefined) this.add(p, "missing required field: type");
    else this.oneOf(v, "type", p, types);
    this.string(v, "text", p, { max: opts.max, required: true });
    this.boolean(v, "emoji", p);
    this.boolean(v, "verbatim", p);
  }

  list(obj: Json, key: string, at: string, opts: { max: number; required?: boolean }) {
    const v = obj[key];
    if (v === undefined) {
      if (opts.required) this.add(at, `missing required field: ${key}`);
      return undefined;
    }
    if (!Array.isArray(v)) {
      this.add(`${at}/${key}`, "must provide an array");
      return undefined;
    }
    if (opts.required && v.length === 0) this.add(`${at}/${key}`, "must provide at least 1 item");
    if (v.length > opts.max) this.add(`${at}/${key}`, `no more than ${opts.max} items allowed`);
    return v as unknown[];
  }
}

function confirm(c: Check, v: unknown, at: string) {
  if (!isObject(v)) return c.add(at, "must provide an object");
  c.text(v, "title", at, { max: L.confirmTitle, plain: true, required: true });
  c.text(v, "text", at, { max: L.confirmText, required: true });
  c.text(v, "confirm", at, { max: L.confirmButton, plain: true, required: true });
  c.text(v, "deny", at, { max: L.confirmButton, plain: true, required: true });
  c.oneOf(v, "style", at, ["primary", "danger"]);
}

/** `button` and `image` elements; `actionIds` keeps action_ids unique within their block. */
function element(
  c: Check,
  v: unknown,
  at: string,
  allowed: readonly string[],
  actionIds: Set<string>,
) {
  if (!isObject(v)) return c.add(at, "must provide an object");
  if (typeof v.type !== "string" || !allowed.includes(v.type)) {
    const what = `the emulator supports ${allowed.join(", ")} here`;
    return c.add(`${at}/type`, `failed to match all allowed schemas (${what})`);
  }
  if (v.type === "image") {
    c.string(v, "image_url", at, { max: L.imageUrl, required: true });
    c.string(v, "alt_text", at, { max: L.altText, required: true });
    return;
  }
  c.text(v, "text", at, { max: L.buttonText, plain: true, required: true });
  const actionId = c.string(v, "action_id", at, { max: L.actionId });
  if (actionId !== undefined) {
    if (actionIds.has(actionId)) c.add(`${at}/action_id`, "duplicate action_id");
    actionIds.add(actionId);
  }
  c.string(v, "url", at, { max: L.url });
  c.string(v, "value", at, { max: L.buttonValue });
  c.oneOf(v, "style", at, ["primary", "danger"]);
  c.string(v, "accessibility_label", at, { max: L.accessibilityLabel });
  if (v.confirm !== undefined) confirm(c, v.confirm, `${at}/confirm`);
}

function block(c: Check, v: unknown, at: string, surface: Surface, blockIds: Set<string>) {
  if (!isObject(v)) return c.add(at, "must provide an object");
  if (v.type === undefined) return c.add(at, "missing required field: type");
  const kinds = BLOCKS[surface];
  if (typeof v.type !== "string" || !kinds.includes(v.type)) {
    const what = `the emulator supports ${kinds.join(", ")} in a ${surface}`;
    return c.add(`${at}/type`, `failed to match all allowed schemas (${what})`);
  }
  const blockId = c.string(v, "block_id", at, { max: L.blockId });
  if (blockId !== undefined) {
    if (blockIds.has(blockId)) c.add(`${at}/block_id`, "duplicate block_id");
    blockIds.add(blockId);
  }
  const actionIds = new Set<string>();
  switch (v.type) {
    case "section": {
      if (v.text === undefined && v.fields === undefined) c.add(at, "missing required field: text");
      c.text(v, "text", at, { max: L.sectionText });
      const fields = c.list(v, "fields", at, { max: L.sectionFields });
      fields?.forEach((f, i) => {
        c.textObject(f, `${at}/fields/${i}`, { max: L.sectionFieldText });
      });
      if (v.accessory !== undefined)
        element(c, v.accessory, `${at}/accessory`, ["button", "image"], actionIds);
      return;
    }
    case "header":
      return c.text(v, "text", at, { max: L.headerText, plain: true, required: true });
    case "divider":
      return;
    case "context": {
      const items = c.list(v, "elements", at, { max: L.contextElements, required: true });
      items?.forEach((e, i) => {
        const p = `${at}/elements/${i}`;
        if (isObject(e) && e.type === "image") element(c, e, p, ["image"], actionIds);
        else c.textObject(e, p, { max: L.text });
      });
      return;
    }
    case "actions": {
      const items = c.list(v, "elements", at, { max: L.actionsElements, required: true });
      items?.forEach((e, i) => {
        element(c, e, `${at}/elements/${i}`, ["button"], actionIds);
      });
      return;
    }
    case "image":
      c.string(v, "image_url", at, { max: L.imageUrl, required: true });
      c.string(v, "alt_text", at, { max: L.altText, required: true });
      return c.text(v, "title", at, { max: L.imageTitle, plain: true });
    default:
      // markdown: raw standard Markdown, messages only.
      c.string(v, "text", at, { max: L.markdownText, required: true });
  }
}

function blocksOf(c: Check, list: unknown[], at: string, surface: Surface): void {
  const max = surface === "home" ? L.homeBlocks : L.messageBlocks;
  if (list.length > max) c.add(at, `no more than ${max} items allowed`);
  const blockIds = new Set<string>();
  list.forEach((b, i) => {
    block(c, b, `${at}/${i}`, surface, blockIds);
  });
}

/** A message's `blocks` (at most 50), pointers under `/blocks`. */
export function checkMessageBlocks(blocks: unknown[]): BlockProblem[] {
  const c = new Check();
  blocksOf(c, blocks, "/blocks", "message");
  return c.problems;
}

/** A `home` view for `views.publish`, pointers under `/view`. */
export function checkHomeView(view: unknown): BlockProblem[] {
  const c = new Check();
  const at = "/view";
  if (!isObject(view)) {
    c.add(at, "must provide an object");
    return c.problems;
  }
  if (view.type === undefined) c.add(at, "missing required field: type");
  else c.oneOf(view, "type", at, ["home"]);
  c.string(view, "private_metadata", at, { max: L.privateMetadata });
  c.string(view, "callback_id", at, { max: L.callbackId });
  c.string(view, "external_id", at, { max: L.externalId });
  const blocks = c.list(view, "blocks", at, { max: Number.POSITIVE_INFINITY });
  if (view.blocks === undefined) c.add(at, "missing required field: blocks");
  if (blocks) blocksOf(c, blocks, `${at}/blocks`, "home");
  return c.problems;
}

const shortHash = (seed: string, n: number): string =>
  createHash("sha256").update(seed).digest("base64url").replace(/[-_]/g, "x").slice(0, n);

/**
 * The blocks as the platform stores them: a `block_id` on every block and an `action_id` on
 * every button that had none ("If not specified, one will be generated"), derived from `seed`
 * so that the same publish stores the same ids.
 */
export function withGeneratedIds(blocks: unknown[], seed: string): Json[] {
  const copy = structuredClone(blocks) as Json[];
  const taken = new Set(copy.map((b) => b.block_id).filter((id) => typeof id === "string"));
  copy.forEach((b, i) => {
    if (typeof b.block_id !== "string") {
      let id = shortHash(`${seed}:block:${i}`, 5);
      while (taken.has(id)) id = shortHash(`${seed}:block:${i}:${id}`, 5);
      taken.add(id);
      b.block_id = id;
    }
    buttonsIn(b).forEach((button, j) => {
      if (typeof button.action_id !== "string")
        button.action_id = shortHash(`${seed}:action:${i}:${j}`, 4);
    });
  });
  return copy;
}

/** The buttons of one block: a section's accessory, an actions block's elements. */
function buttonsIn(block: Json): Json[] {
  const candidates =
    block.type === "section"
      ? [block.accessory]
      : block.type === "actions"
        ? (block.elements as unknown[])
        : [];
  return (candidates ?? []).filter((e): e is Json => isObject(e) && e.type === "button");
}

/** Every button of stored blocks, with the block it sits in. */
export function buttonsOf(blocks: Json[]): { blockId: string; button: Json }[] {
  return blocks.flatMap((b) =>
    buttonsIn(b).map((button) => ({ blockId: String(b.block_id), button })),
  );
}
