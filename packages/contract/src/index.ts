/**
 * The Talab API contract: the REST `HttpApi` with its groups, the envelope and field schemas, the WebSocket
 * frames, the middlewares' tags, the error messages in Arabic and English, and the OpenAPI and AsyncAPI
 * documents built from them. No server: `@talab/http-server` implements it, the SDK is generated from it.
 */
export * from "./Api.js"
export * from "./alerts/Api.js"
export * from "./audit/Api.js"
export * from "./auth/Api.js"
export * from "./chat/Api.js"
export * from "./chat/Views.js"
export * from "./deals/Api.js"
export { asyncApiDocument } from "./docs/AsyncApiDocument.js"
export { openApiDocument } from "./docs/OpenApiDocument.js"
export {
  type CodeOfStatus,
  codesOfStatus,
  type ErrorCode,
  type ErrorStatus,
  errorCatalogue,
  isErrorCode,
  statusOfCode
} from "./errors/Catalogue.js"
export * from "./http/Envelope.js"
export * from "./http/Fields.js"
export * from "./http/Paths.js"
export * from "./http/Problems.js"
export * from "./http/Security.js"
export * from "./http/Views.js"
export * from "./i18n/messages.js"
export * from "./images/Api.js"
export * from "./images/View.js"
export * from "./offers/Api.js"
export * from "./ratings/Api.js"
export * from "./realtime/Protocol.js"
export * from "./reports/Api.js"
export * from "./requests/Api.js"
export * from "./sellers/Api.js"
export * from "./trust/View.js"
export * from "./users/AdminApi.js"
export * from "./users/Api.js"
export * from "./users/Export.js"
