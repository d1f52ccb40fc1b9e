export * as ConsoleSms from "./ConsoleSms.js"
export * as SmsOutbox from "./SmsOutbox.js"
export * as TwilioSms from "./TwilioSms.js"
