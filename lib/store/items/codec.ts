import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { CorruptItemError } from "../errors";

export type Item = Record<string, AttributeValue>;

export const s = (value: string): AttributeValue => ({ S: value });
export const n = (value: number): AttributeValue => ({ N: String(value) });

export function readS(item: Item, name: string): string {
  const v = item[name];
  if (v === undefined || !("S" in v) || typeof v.S !== "string") {
    throw new CorruptItemError(`/${name}`, `item ${describe(item)} lacks string attribute ${name}`);
  }
  return v.S;
}

export function readN(item: Item, name: string): number {
  const v = item[name];
  const parsed = v !== undefined && "N" in v ? Number(v.N) : Number.NaN;
  if (!Number.isFinite(parsed)) {
    throw new CorruptItemError(`/${name}`, `item ${describe(item)} lacks number attribute ${name}`);
  }
  return parsed;
}

export function readOptionalN(item: Item, name: string): number | undefined {
  return item[name] === undefined ? undefined : readN(item, name);
}

/** Nested data is stored as one JSON string attribute, written and read only by these modules. */
export function readJson<T>(item: Item, name: string): T {
  const text = readS(item, name);
  try {
    return JSON.parse(text) as T;
  } catch (error: unknown) {
    throw new CorruptItemError(`/${name}`, `item ${describe(item)} holds invalid JSON in ${name}`, {
      cause: error,
    });
  }
}

/**
 * Nested data as raw-deflated JSON in one binary attribute, for the bulky parts of items written
 * often: DynamoDB bills a write per 1 KB and a read per 4 KB of the whole item, and JSON this
 * repetitive (the same keys in every entry) shrinks to a third or less.
 */
export const packJson = (value: unknown): AttributeValue => ({
  B: deflateRawSync(Buffer.from(JSON.stringify(value))),
});

export function readPackedJson<T>(item: Item, name: string): T {
  const v = item[name];
  if (v === undefined || !("B" in v) || !(v.B instanceof Uint8Array)) {
    throw new CorruptItemError(`/${name}`, `item ${describe(item)} lacks binary attribute ${name}`);
  }
  try {
    return JSON.parse(inflateRawSync(v.B).toString("utf8")) as T;
  } catch (error: unknown) {
    throw new CorruptItemError(`/${name}`, `item ${describe(item)} holds invalid data in ${name}`, {
      cause: error,
    });
  }
}

/**
 * Nested data under `packed` (packJson), or as a JSON string under `plain` on an item written
 * before it was packed: a deployed table holds those until each item is next written.
 */
export const readJsonPackedOrPlain = <T>(item: Item, packed: string, plain: string): T =>
  item[packed] !== undefined ? readPackedJson<T>(item, packed) : readJson<T>(item, plain);

const describe = (item: Item): string => {
  const pk = item.PK;
  const sk = item.SK;
  return `${pk && "S" in pk ? pk.S : "?"} ${sk && "S" in sk ? sk.S : "?"}`;
};

export const userPk = (team: string, user: string): string => `USER#${team}#${user}`;
