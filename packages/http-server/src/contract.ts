export { Api } from "./Api.js"
export * from "./http/Envelope.js"
export * from "./realtime/Protocol.js"
