export {
  channelIdSchema,
  entryIdSchema,
  eventIdSchema,
  isChannelId,
  MAX_ENTRY_ID_LENGTH,
  MAX_ID_LENGTH,
  MAX_SOURCE_ID_LENGTH,
  sourceIdSchema,
  WORKSPACE_ID,
  workspaceIdSchema,
} from "#lib/core/ids";
export type { GooglePush } from "#lib/http/calendar-push";
export { isGoogleHandshake, verifyChannelToken, verifyClientState } from "#lib/http/calendar-push";
export { channelToken, channelTokenMatches, newChannelId } from "#lib/http/channel-token";
export type { WebhookErrorCode } from "#lib/http/errors";
export {
  MethodNotAllowed,
  StaleTimestampError,
  WebhookError,
  WebhookInputError,
} from "#lib/http/errors";
export type { WebhookReply, WebhookRequest } from "#lib/http/request";
export { issuePointer, jsonReply, parseInput, parseJsonInput, textReply } from "#lib/http/request";
export type { SignedRequest } from "#lib/http/signature";
export {
  BAD_SIGNATURE,
  constantTimeEqual,
  header,
  SIGNATURE_WINDOW_S,
  signV0,
  verifyV0,
} from "#lib/http/signature";
export type { ChannelBinding, ChannelKind, WebhookDeps } from "./deps";
export type { CalendarPushRequest } from "./handle-calendar-push";
export {
  CALENDAR_HOOK_ROUTES,
  handleCalendarPush,
  handleGenericHook,
  handleGooglePush,
  handleGraphNotification,
  MAX_GRAPH_FAILURES,
  MAX_GRAPH_LOOKUPS,
} from "./handle-calendar-push";
export type { OooCommandDeps } from "./handle-ooo-command";
export { formatEntry, handleOooCommand, NOT_SET_UP } from "./handle-ooo-command";
export type { ServiceEventOptions } from "./handle-service-event";
export { ACK_DEADLINE_MS, handleServiceEvent } from "./handle-service-event";
export type { InteractionDeps } from "./interactive";
export { handleInteraction, interactionSchema, MAX_PAYLOAD_LENGTH } from "./interactive";
export type { OooCommand } from "./ooo-command";
export { OOO_USAGE, OooCommandError, parseOooCommand, zonedToEpoch } from "./ooo-command";
export type { EventOnce } from "./service-events";
export {
  EVERY_TIME,
  envelopeSchema,
  eventCallbackSchema,
  MAX_TYPE_LENGTH,
  RecentIds,
  tokensRevokedEventSchema,
  toUserChange,
  urlVerificationSchema,
  userChangeEventSchema,
} from "./service-events";
export type { SlashCommand } from "./slash-command";
export { ephemeral, readSlashCommand } from "./slash-command";
export type { StatuspilotCommandDeps } from "./statuspilot-command";
export {
  describeStatus,
  handleStatuspilotCommand,
  STATUSPILOT_HELP,
} from "./statuspilot-command";
