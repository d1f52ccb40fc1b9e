/**
 * The API's types only (paths, schemas, operations, WebSocket frames), generated from the server's OpenAPI
 * document: `import type { ApiSchemas } from "@talab/client-sdk/types"`. No code.
 *
 * @packageDocumentation
 */
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
export type {
  ChatMessage,
  ClientFrame,
  MessageKind,
  PushPayload,
  PushType,
  ServerFrame
} from "./realtime/frames.js"
