import { readFileSync } from "node:fs";
import * as z from "zod";
import type { LocalGoogleSettings } from "./google";
import { type MicrosoftLocalConfig, microsoftLocalConfigSchema } from "./microsoft-config";

/**
 * The `--config` file's `providers` section: calendar providers' OAuth clients and addresses.
 * A provider given here is used as it is, and `statuspilot start` runs no emulator for it;
 * without it the stack runs the provider's emulator.
 */
const httpUrl = z.url({ protocol: /^https?$/ });

export const localProvidersSchema = z
  .object({
    google: z
      .object({
        clientId: z.string().min(1),
        clientSecret: z.string().min(1),
        authUrl: httpUrl,
        tokenUrl: httpUrl,
        /** The Google APIs root (https://www.googleapis.com): the Calendar API is below it. */
        apiBaseUrl: httpUrl,
      })
      .strict()
      .optional(),
    microsoft: microsoftLocalConfigSchema.optional(),
  })
  .loose();

export interface LocalProviders {
  google?: LocalGoogleSettings;
  microsoft?: MicrosoftLocalConfig;
}

/** The providers of a config file already checked by loadLocalConfig (an absent section: none). */
export function loadLocalProviders(path: string): LocalProviders {
  const json = JSON.parse(readFileSync(path, "utf8")) as { providers?: unknown };
  if (json.providers === undefined) return {};
  const parsed = localProvidersSchema.parse(json.providers);
  return {
    ...(parsed.google !== undefined ? { google: parsed.google } : {}),
    ...(parsed.microsoft !== undefined ? { microsoft: parsed.microsoft } : {}),
  };
}
