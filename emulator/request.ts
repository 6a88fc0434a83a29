/** Turns an HTTP request into the method's arguments, with the service's request-shape errors. */

export type ParsedArgs = { ok: true; args: Record<string, unknown> } | { ok: false; code: string };

const POST_TYPES = new Set([
  "application/json",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "text/plain",
]);
const CHARSETS = new Set(["utf-8", "utf8", "iso-8859-1", "latin1"]);
const ARG_NAME = /^[A-Za-z0-9_]{1,255}$/;

function parseContentType(header: string): { type: string; params: Map<string, string> } {
  const [type = "", ...rest] = header.split(";");
  const params = new Map<string, string>();
  for (const p of rest) {
    const eq = p.indexOf("=");
    if (eq > 0)
      params.set(
        p.slice(0, eq).trim().toLowerCase(),
        p
          .slice(eq + 1)
          .trim()
          .replace(/^"|"$/g, ""),
      );
  }
  return { type: type.trim().toLowerCase(), params };
}

function decodeForm(text: string): Record<string, unknown> | undefined {
  const args: Record<string, unknown> = {};
  if (text.trim() === "") return args;
  for (const pair of text.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? "" : pair.slice(eq + 1);
    let key: string;
    let value: string;
    try {
      // URLSearchParams forgives bad escapes; the service does not.
      key = decodeURIComponent(rawKey.replace(/\+/g, " "));
      value = decodeURIComponent(rawValue.replace(/\+/g, " "));
    } catch {
      return undefined;
    }
    const prior = args[key];
    if (prior === undefined) args[key] = value;
    else args[key] = Array.isArray(prior) ? [...prior, value] : [prior, value];
  }
  return args;
}

export async function parseRequestArgs(
  contentTypeHeader: string | undefined,
  body: Buffer,
): Promise<ParsedArgs> {
  if (contentTypeHeader === undefined || contentTypeHeader.trim() === "") {
    return body.length === 0 ? { ok: true, args: {} } : { ok: false, code: "missing_post_type" };
  }
  const { type, params } = parseContentType(contentTypeHeader);
  if (!POST_TYPES.has(type)) return { ok: false, code: "invalid_post_type" };
  const charset = params.get("charset")?.toLowerCase();
  if (charset !== undefined && !CHARSETS.has(charset))
    return { ok: false, code: "invalid_charset" };
  const text = body.toString(charset === "iso-8859-1" || charset === "latin1" ? "latin1" : "utf8");

  let args: Record<string, unknown> | undefined;
  if (type === "application/json") {
    if (text.trim() === "") args = {};
    else {
      try {
        const doc: unknown = JSON.parse(text);
        if (doc !== null && typeof doc === "object" && !Array.isArray(doc)) {
          args = doc as Record<string, unknown>;
        }
      } catch {
        args = undefined;
      }
    }
  } else if (type === "multipart/form-data") {
    try {
      // A copy typed as plain bytes: fetch's types (DOM's, with preact in the program) take no Buffer.
      const form = await new Response(new Uint8Array(body), {
        headers: { "content-type": contentTypeHeader },
      }).formData();
      args = {};
      // forEach, not entries(): with preact in the program, FormData is the DOM one (not iterable).
      const entries: [string, FormDataEntryValue][] = [];
      form.forEach((value, key) => {
        entries.push([key, value]);
      });
      for (const [key, value] of entries) {
        const v = typeof value === "string" ? value : await value.text();
        const prior = args[key];
        args[key] = prior === undefined ? v : Array.isArray(prior) ? [...prior, v] : [prior, v];
      }
    } catch {
      args = undefined;
    }
  } else {
    args = decodeForm(text);
  }
  if (args === undefined) return { ok: false, code: "invalid_form_data" };
  for (const name of Object.keys(args)) {
    if (!ARG_NAME.test(name)) return { ok: false, code: "invalid_arg_name" };
  }
  return { ok: true, args };
}

/** Reads a string argument; arrays are `invalid_array_arg`, other shapes `invalid_arguments`. */
export function stringArg(
  args: Record<string, unknown>,
  name: string,
): { ok: true; value: string | undefined } | { ok: false; code: string } {
  const v = args[name];
  if (v === undefined || v === null) return { ok: true, value: undefined };
  if (Array.isArray(v)) return { ok: false, code: "invalid_array_arg" };
  if (typeof v === "string") return { ok: true, value: v };
  if (typeof v === "number" || typeof v === "boolean") return { ok: true, value: String(v) };
  return { ok: false, code: "invalid_arguments" };
}
