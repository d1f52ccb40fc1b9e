import * as Schema from "effect/Schema"

/** Languages every text of the service is available in. */
export const Language = Schema.Literal("ar", "en")
export type Language = typeof Language.Type
export const defaultLanguage: Language = "ar"

export const Category = Schema.Literal("phone", "accessory")
export type Category = typeof Category.Type

export const ConditionPref = Schema.Literal("new", "used", "refurbished", "any")
export type ConditionPref = typeof ConditionPref.Type

export const Platform = Schema.Literal("ios", "android", "web")
export type Platform = typeof Platform.Type

export const ReportReason = Schema.Literal("fake_offer", "no_show", "rude", "scam", "other")
export type ReportReason = typeof ReportReason.Type

export const ResolveAction = Schema.Literal("dismiss", "warn", "suspend_seller")
export type ResolveAction = typeof ResolveAction.Type

/** A timestamp, ISO 8601 UTC on the wire. */
export const Timestamp = Schema.Date
export type Timestamp = typeof Timestamp.Type
