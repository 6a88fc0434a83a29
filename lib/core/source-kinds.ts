/**
 * The calendar source kinds, as the domain's records name them. Each has a provider in
 * lib/calendar/providers (registry.ts maps every kind listed here to its module, and the
 * compiler asks for the entry), so a new provider is one word here plus its module.
 *
 * Written out as literals so that a bundle needing only the kinds (a codec, an input schema)
 * carries no provider code.
 */
export const SOURCE_KINDS = ["ics", "google", "graph", "generic"] as const;

/** The kind of a calendar source: which provider reads it. */
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** The kinds whose provider has a push hook: a push channel is bound with one of them. */
export const CHANNEL_KINDS = [
  "google",
  "graph",
  "generic",
] as const satisfies readonly SourceKind[];

/** The kind of a push channel: the hook its pushes come through. */
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export const isSourceKind = (kind: string): kind is SourceKind =>
  (SOURCE_KINDS as readonly string[]).includes(kind);

export const isChannelKind = (kind: string): kind is ChannelKind =>
  (CHANNEL_KINDS as readonly string[]).includes(kind);
