import * as z from "zod";
import {
  CHANNEL_KINDS,
  type ChannelKind,
  isChannelKind,
  isSourceKind,
  SOURCE_KINDS,
  type SourceKind,
} from "#lib/core/source-kinds";
import { UnknownProviderError } from "./errors";
import { genericProvider, genericPushHook } from "./generic";
import { googleProvider, googlePushHook } from "./google";
import { graphProvider, graphPushHook } from "./graph";
import { icsProvider } from "./ics";
import type { CalendarProvider, PushHook } from "./provider";

/**
 * The registry of calendar providers: the one place that source kinds, channel kinds, their
 * input schemas, the stored-item codecs and the calendar hooks' routes come from.
 *
 * A new provider is a module beside this one, its kind in SOURCE_KINDS (lib/core/source-kinds.ts) (the compiler then asks
 * for its entry in PROVIDERS) and, when it pushes, in CHANNEL_KINDS (then PUSH_HOOKS asks for
 * its hook, and its route goes into functions/routes.ts and serverless.yml).
 *
 * The kinds are written out rather than read off the providers so that a bundle needing only
 * the kinds (a codec, an input schema) leaves the providers' code out, and the lookups below
 * are functions so that a bundle that reads calendars leaves the push hooks out.
 */
export {
  CHANNEL_KINDS,
  type ChannelKind,
  isChannelKind,
  isSourceKind,
  SOURCE_KINDS,
  type SourceKind,
};

const PROVIDERS: { readonly [K in SourceKind]: CalendarProvider & { readonly kind: K } } = {
  ics: icsProvider,
  google: googleProvider,
  graph: graphProvider,
  generic: genericProvider,
};

const PUSH_HOOKS: { readonly [K in ChannelKind]: PushHook } = {
  google: googlePushHook,
  graph: graphPushHook,
  generic: genericPushHook,
};

/** A source's `kind` in an input: one of SOURCE_KINDS. */
export const sourceKindSchema = z.enum(SOURCE_KINDS);

/** A channel's `kind` in an input: one of CHANNEL_KINDS. */
export const channelKindSchema = z.enum(CHANNEL_KINDS);

/** The provider of `kind`, or undefined. */
export const findProvider = (kind: string): CalendarProvider | undefined =>
  isSourceKind(kind) ? PROVIDERS[kind] : undefined;

/** The provider of `kind`; an unknown kind throws UnknownProviderError, naming the known ones. */
export function providerFor(kind: string): CalendarProvider {
  const provider = findProvider(kind);
  if (provider === undefined) throw new UnknownProviderError(kind, SOURCE_KINDS);
  return provider;
}

/** The push hook of channel kind `kind`. */
export const pushHookOf = (kind: ChannelKind): PushHook => PUSH_HOOKS[kind];

/** The push hook API Gateway reaches by `routeKey`, with its channel kind, or undefined. */
export function pushHookFor(routeKey: string): { kind: ChannelKind; hook: PushHook } | undefined {
  const kind = CHANNEL_KINDS.find((k) => PUSH_HOOKS[k].routeKey === routeKey);
  return kind === undefined ? undefined : { kind, hook: PUSH_HOOKS[kind] };
}

/** Every push hook's route key, with the channel kind it serves. */
export const pushRoutes = (): Record<string, ChannelKind> =>
  Object.fromEntries(CHANNEL_KINDS.map((kind) => [PUSH_HOOKS[kind].routeKey, kind]));
