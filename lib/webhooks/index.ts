export type { GooglePush } from "./calendar-push";
export { isGoogleHandshake, verifyChannelToken, verifyClientState } from "./calendar-push";
export type { WebhookErrorCode } from "./errors";
export { StaleTimestampError, WebhookError } from "./errors";
export type { OooCommand } from "./ooo-command";
export { OOO_USAGE, OooCommandError, parseOooCommand, zonedToEpoch } from "./ooo-command";
export {
  envelopeSchema,
  eventCallbackSchema,
  RecentIds,
  toUserChange,
  urlVerificationSchema,
  userChangeEventSchema,
} from "./service-events";
export type { SignedRequest } from "./signature";
export { constantTimeEqual, header, SIGNATURE_WINDOW_S, signV0, verifyV0 } from "./signature";
