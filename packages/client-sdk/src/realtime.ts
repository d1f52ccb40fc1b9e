/**
 * The realtime (WebSocket) chat client: `import { RealtimeClient } from "@talab/client-sdk/realtime"`. Apps
 * usually get one from `createTalabClient(…).realtime()`; this entry is for wiring it to a REST client of
 * your own through {@link RealtimeHost}.
 *
 * @packageDocumentation
 */
export type { BackoffOptions } from "./realtime/backoff.js"
export type {
  ChatMessage,
  ClientFrame,
  OfferCreated,
  RequestMatch,
  ServerFrame,
  UserEvent
} from "./realtime/frames.js"
export type { MessagePosition } from "./realtime/MessageLog.js"
export {
  type MessagePage,
  RealtimeClient,
  type RealtimeEvents,
  type RealtimeHost,
  type RealtimeOptions,
  type RealtimeState
} from "./realtime/RealtimeClient.js"
export {
  isRealtimeError,
  REALTIME_CLIENT_CODES,
  RealtimeError,
  type RealtimeErrorCode,
  type RealtimeServerCode
} from "./realtime/RealtimeError.js"
export type { WebSocketConstructor, WebSocketLike } from "./realtime/WebSocketLike.js"
