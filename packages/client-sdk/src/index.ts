/**
 * The typed client of the Talab API: REST calls typed from the server's own OpenAPI document, a
 * session with refresh and sign-out, timeouts and retries, pagination helpers, and the realtime chat
 * over WebSocket. Smaller entries: `@talab/client-sdk/errors`, `/types`, `/rest` (no realtime) and
 * `/realtime`.
 *
 * @packageDocumentation
 */
export { createTalabClient, TalabClient } from "./client/TalabClient.js"
export * from "./realtime.js"
export * from "./rest.js"
