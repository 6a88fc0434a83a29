import * as z from "zod";
import { UnknownProviderError } from "./errors";
import { genericProvider } from "./generic";
import { googleProvider } from "./google";
import { graphProvider } from "./graph";
import { icsProvider } from "./ics";
import type { CalendarProvider } from "./provider";

/**
 * Every calendar provider: the single list that source kinds, channel kinds, their input
 * schemas, the stored-item codec and the hooks' routes derive from. A new provider is a module
 * beside this one and one entry here (then its route in functions/routes.ts and serverless.yml,
 * when it pushes).
 */
const PROVIDERS = [icsProvider, googleProvider, graphProvider, genericProvider] as const;

type Registered = (typeof PROVIDERS)[number];

/** The kind of a calendar source: how it is read. */
export type SourceKind = Registered["kind"];

/** The kind of a push channel: the providers with a push hook. */
export type ChannelKind = RegisteredPushProvider["kind"];

/** Every source kind, in registry order. */
export const SOURCE_KINDS: readonly SourceKind[] = PROVIDERS.map((p) => p.kind);

/** A registered provider with a push hook; its `kind` is a ChannelKind. */
export type RegisteredPushProvider = Extract<Registered, { push: unknown }>;

const hasPush = (p: Registered): p is RegisteredPushProvider => "push" in p;
const PUSH_PROVIDERS = PROVIDERS.filter(hasPush);

/** Every channel kind (the providers that push), in registry order. */
export const CHANNEL_KINDS: readonly ChannelKind[] = PUSH_PROVIDERS.map((p) => p.kind);

/** A source's `kind` in an input: one of SOURCE_KINDS. */
export const sourceKindSchema = z.enum(SOURCE_KINDS);

/** A channel's `kind` in an input: one of CHANNEL_KINDS. */
export const channelKindSchema = z.enum(CHANNEL_KINDS);

export const isSourceKind = (kind: string): kind is SourceKind =>
  (SOURCE_KINDS as readonly string[]).includes(kind);

export const isChannelKind = (kind: string): kind is ChannelKind =>
  (CHANNEL_KINDS as readonly string[]).includes(kind);

/** The provider of `kind`, or undefined. */
export const findProvider = (kind: string): CalendarProvider | undefined =>
  PROVIDERS.find((p) => p.kind === kind);

/** The provider of `kind`; an unknown kind throws UnknownProviderError, naming the known ones. */
export function providerFor(kind: string): CalendarProvider {
  const provider = findProvider(kind);
  if (provider === undefined) throw new UnknownProviderError(kind, SOURCE_KINDS);
  return provider;
}

/** The provider whose push hook API Gateway reaches by `routeKey`, or undefined. */
export function pushProviderFor(routeKey: string): RegisteredPushProvider | undefined {
  return PUSH_PROVIDERS.find((p) => p.push.routeKey === routeKey);
}

/** The route key of every push hook, with the channel kind it serves. */
export const PUSH_ROUTES: Readonly<Record<string, ChannelKind>> = Object.fromEntries(
  PUSH_PROVIDERS.map((p) => [p.push.routeKey, p.kind]),
);
