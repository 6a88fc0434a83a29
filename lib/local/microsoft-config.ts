import * as z from "zod";
import type { MicrosoftEnv } from "#devstack/app";

/**
 * Microsoft for the local stack: `providers.microsoft` of `statuspilot start --config FILE`
 * (`clientId`, `clientSecret`, `authUrl`, `tokenUrl`, `graphBaseUrl`) when it is given, and
 * otherwise the Microsoft emulator (lib/local/microsoft.ts starts it on a port the OS picks).
 * Either way the app sees the same MICROSOFT_* settings (lib/app/config.ts).
 */
export const microsoftLocalConfigSchema = z
  .object({
    clientId: z.string().min(1),
    clientSecret: z.string().min(1),
    authUrl: z.url({ protocol: /^https?$/ }),
    tokenUrl: z.url({ protocol: /^https?$/ }),
    graphBaseUrl: z.url({ protocol: /^https?$/ }),
  })
  .strict();
export type MicrosoftLocalConfig = z.infer<typeof microsoftLocalConfigSchema>;

export const microsoftEnvOf = (c: MicrosoftLocalConfig): MicrosoftEnv => ({
  MICROSOFT_CLIENT_ID: c.clientId,
  MICROSOFT_CLIENT_SECRET: c.clientSecret,
  MICROSOFT_AUTH_URL: c.authUrl,
  MICROSOFT_TOKEN_URL: c.tokenUrl,
  MICROSOFT_GRAPH_BASE_URL: c.graphBaseUrl,
});
