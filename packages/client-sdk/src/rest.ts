/**
 * The REST client without the realtime (WebSocket) client: `import { createTalabRestClient } from
 * "@talab/client-sdk/rest"`. Typed calls, session with refresh and sign-out, timeouts and retries, pagination.
 *
 * @packageDocumentation
 */

export type { SessionEvents, SignedOutReason } from "./auth/Session.js"
export {
  type KeyValueStorage,
  memoryTokenStore,
  type SessionTokens,
  type TokenStore,
  webStorageTokenStore
} from "./auth/TokenStore.js"
export type { PageData, PageItem, PaginatedPath, PaginationInfo } from "./client/pagination.js"
export type { RetryOptions } from "./client/retry.js"
export {
  createTalabRestClient,
  type SessionDevice,
  type SessionInfo,
  type SignInResult,
  type TalabClientEvents,
  type TalabClientOptions,
  TalabRestClient,
  type UploadFile
} from "./client/TalabRestClient.js"
export type { FetchFunction } from "./client/Transport.js"
export * from "./errors.js"
export * from "./types.js"
