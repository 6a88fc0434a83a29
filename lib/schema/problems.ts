/**
 * One thing wrong with a submitted document. `pointer` is an RFC 6901 JSON Pointer into the
 * document as submitted ("" is the whole document). `code` is the service error code an emulator
 * should answer for this problem (profile problems only).
 */
export interface Problem {
  message: string;
  pointer: string;
  code?: string;
}

export type PathSegment = string | number;

/** Escapes one reference token per RFC 6901: `~` becomes `~0` and `/` becomes `~1`. */
export function escapePointerToken(token: PathSegment): string {
  return String(token).replaceAll("~", "~0").replaceAll("/", "~1");
}

/** Builds an RFC 6901 JSON Pointer from path segments; the empty path is "". */
export function toPointer(path: readonly PathSegment[]): string {
  return path.map((segment) => `/${escapePointerToken(segment)}`).join("");
}

/** Splits an RFC 6901 JSON Pointer back into its unescaped tokens. */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new SyntaxError(`not a JSON Pointer: ${pointer}`);
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** The value a pointer designates inside `doc`, or undefined when it does not exist. */
export function valueAtPointer(doc: unknown, pointer: string): unknown {
  let current: unknown = doc;
  for (const token of parsePointer(pointer)) {
    if (current === null || typeof current !== "object") return undefined;
    if (!Object.hasOwn(current, token)) return undefined;
    current = (current as Record<string, unknown>)[token];
  }
  return current;
}

/**
 * "Characters", for every length limit in this module, are Unicode code points: an emoji or a
 * CJK character counts as one, whatever its UTF-16 length. That is what a user counts, and it
 * never rejects text the service would accept on a code-unit count.
 */
export function charLength(s: string): number {
  let count = 0;
  for (const _ of s) count++;
  return count;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A short description of a JSON value's type, for messages. */
export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isInteger(value)) return "integer";
  return typeof value;
}
