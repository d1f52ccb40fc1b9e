export { AdjustableClock } from "./Clock.js"
export { PushRecorder, SmsRecorder } from "./Recorders.js"
export { startTestServer, type TestServer, type TestServerOptions } from "./TestServer.js"
