/**
 * The typed client of the Talab API: REST calls typed from the server's own OpenAPI document, a
 * session with refresh and sign-out, pagination helpers, and the realtime chat over WebSocket.
 *
 * @packageDocumentation
 */
export {
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorCode,
  type ErrorDetails,
  type ErrorEnvelope,
  isTalabApiError,
  TalabApiError,
  TalabNetworkError
} from "./api/errors.js"
export type {
  ApiMethod,
  ApiOperations,
  ApiPaths,
  ApiSchemas,
  CallMethod,
  PathsWith,
  RawApiClient,
  RequestBody,
  RequestInitOf,
  ResponseBody,
  ResponseData
} from "./api/paths.js"
export type { SessionEvents, SignedOutReason } from "./auth/Session.js"
export { memoryTokenStore, type SessionTokens, type TokenStore } from "./auth/TokenStore.js"
export type { PageData, PageItem, PaginatedPath, PaginationInfo } from "./client/pagination.js"
export {
  createTalabClient,
  type SignInResult,
  TalabClient,
  type TalabClientEvents,
  type TalabClientOptions,
  type UploadFile
} from "./client/TalabClient.js"
export type { FetchFunction } from "./client/Transport.js"
export type { BackoffOptions } from "./realtime/backoff.js"
export type { ChatMessage, ClientFrame, ServerFrame } from "./realtime/frames.js"
export type { MessagePosition } from "./realtime/MessageLog.js"
export {
  type MessagePage,
  RealtimeClient,
  type RealtimeEvents,
  type RealtimeHost,
  type RealtimeOptions,
  type RealtimeState
} from "./realtime/RealtimeClient.js"
export { RealtimeError, type RealtimeErrorCode } from "./realtime/RealtimeError.js"
export type { WebSocketConstructor, WebSocketLike } from "./realtime/WebSocketLike.js"
