import * as z from "zod";
import {
  BOT_DISPLAY_NAME,
  bool,
  EMAIL,
  HEX_COLOR,
  HTTP_URL,
  HTTPS_URL,
  IPV4_RANGE,
  list,
  MANIFEST_LIMITS,
  SLASH_COMMAND,
  strings,
  text,
  UNFURL_DOMAIN,
} from "./blocks";

/** The app's own sections: metadata, directory listing, display, features, OAuth and settings. */

export const metadataSchema = z.strictObject({
  major_version: z.int().optional(),
  minor_version: z.int().optional(),
  schema_version: z.int().optional(),
  min_version: z.int().optional(),
});

export const appDirectorySchema = z.strictObject({
  app_directory_categories: strings().optional(),
  use_direct_install: bool.optional(),
  direct_install_url: text({ pattern: HTTP_URL }).optional(),
  installation_landing_page: text({ pattern: HTTP_URL }),
  privacy_policy_url: text({ pattern: HTTP_URL }),
  support_url: text({ pattern: HTTP_URL }),
  support_email: text({ pattern: EMAIL, patternText: "an e-mail address" }),
  supported_languages: strings(),
  pricing: z.string(),
});

export const displayInformationSchema = z.strictObject({
  name: text({ min: 1, max: MANIFEST_LIMITS.name }),
  description: text({ max: MANIFEST_LIMITS.description }).optional(),
  long_description: text({ max: MANIFEST_LIMITS.longDescription }).optional(),
  background_color: text({
    pattern: HEX_COLOR,
    patternText: "a hex colour #rgb or #rrggbb",
  }).optional(),
});

const actionSchema = z.strictObject({ name: z.string(), description: z.string() });
const promptSchema = z.strictObject({ title: z.string(), message: z.string() });

export const featuresSchema = z.strictObject({
  app_home: z
    .strictObject({
      home_tab_enabled: bool.optional(),
      messages_tab_enabled: bool.optional(),
      messages_tab_read_only_enabled: bool.optional(),
    })
    .optional(),
  agent_view: z
    .strictObject({
      actions: list(actionSchema).optional(),
      agent_description: text({ max: MANIFEST_LIMITS.agentDescription }),
      suggested_prompts: list(promptSchema, MANIFEST_LIMITS.agentSuggestedPrompts).optional(),
    })
    .optional(),
  assistant_view: z
    .strictObject({
      actions: list(actionSchema).optional(),
      assistant_description: z.string(),
      suggested_prompts: list(promptSchema).optional(),
    })
    .optional(),
  bot_user: z
    .strictObject({
      display_name: text({
        min: 1,
        max: MANIFEST_LIMITS.botDisplayName,
        pattern: BOT_DISPLAY_NAME,
        patternText: "letters, digits, spaces, '-', '_', '.' and \"'\" only",
      }),
      always_online: bool.optional(),
    })
    .optional(),
  rich_previews: z
    .strictObject({ is_active: bool.optional(), entity_types: strings().optional() })
    .optional(),
  search: z
    .strictObject({
      search_filters_function_callback_id: z.string().optional(),
      search_function_callback_id: z.string(),
      slackbot_metadata: z
        .strictObject({
          description: z.string().optional(),
          examples: list(z.unknown(), MANIFEST_LIMITS.slackbotExamples).optional(),
          example_query: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
  shortcuts: list(
    z.strictObject({
      name: z.string(),
      callback_id: text({ max: MANIFEST_LIMITS.shortcutCallbackId }),
      description: text({ max: MANIFEST_LIMITS.shortcutDescription }),
      type: z.enum(["message", "global"]),
    }),
    MANIFEST_LIMITS.shortcuts,
  ).optional(),
  slash_commands: list(
    z.strictObject({
      command: text({
        max: MANIFEST_LIMITS.command,
        pattern: SLASH_COMMAND,
        patternText: "a leading /",
      }),
      description: text({ max: MANIFEST_LIMITS.commandDescription }),
      should_escape: bool.optional(),
      url: text({ pattern: HTTPS_URL, patternText: "a full https URL" }).optional(),
      usage_hint: text({ max: MANIFEST_LIMITS.usageHint }).optional(),
    }),
    MANIFEST_LIMITS.slashCommands,
  ).optional(),
  unfurl_domains: list(text({ pattern: UNFURL_DOMAIN }), MANIFEST_LIMITS.unfurlDomains).optional(),
  workflow_steps: list(
    z.strictObject({
      name: text({ max: MANIFEST_LIMITS.workflowStepName }),
      callback_id: text({ max: MANIFEST_LIMITS.workflowStepCallbackId }),
    }),
    MANIFEST_LIMITS.workflowSteps,
  ).optional(),
});

export const oauthConfigSchema = z.strictObject({
  pkce_enabled: bool.optional(),
  redirect_urls: strings(MANIFEST_LIMITS.redirectUrls).optional(),
  scopes: z
    .strictObject({
      bot: strings(MANIFEST_LIMITS.scopes).optional(),
      bot_optional: strings(MANIFEST_LIMITS.scopes).optional(),
      user: strings(MANIFEST_LIMITS.scopes).optional(),
      user_optional: strings(MANIFEST_LIMITS.scopes).optional(),
    })
    .optional(),
  token_management_enabled: bool.optional(),
});

export const settingsSchema = z.strictObject({
  allowed_ip_address_ranges: list(
    text({ pattern: IPV4_RANGE, patternText: "an IPv4 address or CIDR range" }),
    MANIFEST_LIMITS.allowedIpAddressRanges,
  ).optional(),
  event_subscriptions: z
    .strictObject({
      request_url: text({ pattern: HTTPS_URL, patternText: "a full https URL" }).optional(),
      bot_events: strings(MANIFEST_LIMITS.events).optional(),
      user_events: strings(MANIFEST_LIMITS.events).optional(),
      metadata_subscriptions: list(
        z.strictObject({ app_id: z.string(), event_type: z.string() }),
      ).optional(),
    })
    .optional(),
  incoming_webhooks: z.strictObject({ incoming_webhooks_enabled: bool.optional() }).optional(),
  interactivity: z
    .strictObject({
      is_enabled: bool,
      request_url: text({ pattern: HTTPS_URL, patternText: "a full https URL" }).optional(),
      message_menu_options_url: text({
        pattern: HTTPS_URL,
        patternText: "a full https URL",
      }).optional(),
    })
    .optional(),
  org_deploy_enabled: bool.optional(),
  socket_mode_enabled: bool.optional(),
  token_rotation_enabled: bool.optional(),
  is_hosted: bool.optional(),
  is_mcp_enabled: bool.optional(),
  siws_links: z.strictObject({ initiate_uri: text({ pattern: HTTPS_URL }).optional() }).optional(),
  function_runtime: z.enum(["remote", "svc", "slack"]).optional(),
  hermes_app_type: z.string().optional(),
});
