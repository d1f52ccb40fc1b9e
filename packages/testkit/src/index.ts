export { AdjustableClock } from "./Clock.js"
export { type LogLine, LogRecorder } from "./Logs.js"
export { newPhoneNumber } from "./Phones.js"
export { PushRecorder, SmsRecorder } from "./Recorders.js"
export {
  type SignedIn,
  type SignInOptions,
  startTestServer,
  type TestServer,
  type TestServerOptions
} from "./TestServer.js"
