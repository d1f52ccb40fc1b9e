/**
 * The API's error codes and the errors the client throws (REST and realtime), without the HTTP client:
 * `import { isTalabApiError } from "@talab/client-sdk/errors"`.
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
  TalabNetworkError,
  TalabTimeoutError
} from "./api/errors.js"
export {
  isRealtimeError,
  REALTIME_CLIENT_CODES,
  RealtimeError,
  type RealtimeErrorCode,
  type RealtimeServerCode
} from "./realtime/RealtimeError.js"
