/**
 * The API's error codes and the errors the client throws, without the HTTP client:
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
