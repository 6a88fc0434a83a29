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

/**
 * What a browser sends for a form (its inner HTML): each named input (a checkbox or radio only
 * when checked, `on` unless it has a value), each textarea's text and each select's chosen option.
 */
export function formData(inner: string): URLSearchParams {
  const data = new URLSearchParams();
  for (const t of tags(inner, "input")) {
    const { name, type = "text", value } = t.attrs;
    if (name === undefined) continue;
    if ((type === "checkbox" || type === "radio") && !("checked" in t.attrs)) continue;
    data.append(name, value ?? (type === "checkbox" || type === "radio" ? "on" : ""));
  }
  for (const m of inner.matchAll(/<textarea([^>]*)>([\s\S]*?)<\/textarea>/g)) {
    const name = tags(`<textarea${m[1] ?? ""}>`)[0]?.attrs.name;
    if (name !== undefined) data.append(name, decodeEntities(m[2] ?? ""));
  }
  for (const m of inner.matchAll(/<select([^>]*)>([\s\S]*?)<\/select>/g)) {
    const name = tags(`<select${m[1] ?? ""}>`)[0]?.attrs.name;
    const options = tags(m[2] ?? "", "option");
    const chosen = options.find((o) => "selected" in o.attrs) ?? options[0];
    if (name !== undefined) data.append(name, chosen?.attrs.value ?? "");
  }
  return data;
}
