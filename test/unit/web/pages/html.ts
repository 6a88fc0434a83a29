/** Reading rendered HTML in tests: preact writes every attribute as name="value" or a bare name. */

export interface Tag {
  name: string;
  attrs: Record<string, string>;
  /** Offset of the tag in the document. */
  at: number;
}

export function tags(html: string, name?: string): Tag[] {
  const found: Tag[] = [];
  for (const m of html.matchAll(
    /<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=>/]+(?:="[^"]*")?)*)\s*\/?>/g,
  )) {
    const tagName = (m[1] ?? "").toLowerCase();
    if (name !== undefined && tagName !== name) continue;
    const attrs: Record<string, string> = {};
    for (const a of (m[2] ?? "").matchAll(/([^\s=>/]+)(?:="([^"]*)")?/g)) {
      attrs[(a[1] ?? "").toLowerCase()] = decodeEntities(a[2] ?? "");
    }
    found.push({ name: tagName, attrs, at: m.index ?? 0 });
  }
  return found;
}

/** The forms of a page, each with the HTML between its tags. */
export function forms(html: string): { action: string; method: string; inner: string }[] {
  return [...html.matchAll(/<form([^>]*)>([\s\S]*?)<\/form>/g)].map((m) => {
    const attrs = tags(`<form${m[1] ?? ""}>`)[0]?.attrs ?? {};
    return { action: attrs.action ?? "", method: attrs.method ?? "", inner: m[2] ?? "" };
  });
}

/** The text of a page without its tags, entities decoded. */
export const textOf = (html: string): string =>
  decodeEntities(html.replace(/<style[\s\S]*?<\/style>/g, "").replace(/<[^>]*>/g, " "))
    .replace(/\s+/g, " ")
    .trim();

const decodeEntities = (s: string): string =>
  s
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
