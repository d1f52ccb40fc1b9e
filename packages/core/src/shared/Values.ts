import * as Schema from "effect/Schema"

/** Languages every text of the service is available in. */
export const Language = Schema.Literal("ar", "en")
export type Language = typeof Language.Type
/** The language texts are in when neither the request nor the user names one: Arabic. */
export const defaultLanguage: Language = "ar"

/** What a buy request is for: a `phone`, or an `accessory` for one. */
export const Category = Schema.Literal("phone", "accessory")
export type Category = typeof Category.Type

/** The condition a buyer accepts: `new`, `used`, `refurbished`, or `any` of them. */
export const ConditionPref = Schema.Literal("new", "used", "refurbished", "any")
export type ConditionPref = typeof ConditionPref.Type

/** The platform of a device that registers a push token: `ios` and `android` (native apps), `web` (a browser). */
export const Platform = Schema.Literal("ios", "android", "web")
export type Platform = typeof Platform.Type

/**
 * Why a user is reported: `fake_offer` (an offer not meant honestly), `no_show` (did not turn up to the deal),
 * `rude`, `scam` (tried to defraud), or `other` (said in the description).
 */
export const ReportReason = Schema.Literal("fake_offer", "no_show", "rude", "scam", "other")
export type ReportReason = typeof ReportReason.Type

/**
 * What an administrator does with a report: `dismiss` it, `warn` (resolve it, nothing more), or
 * `suspend_seller` (resolve it and suspend the reported user's seller profile, which can then make no offers).
 */
export const ResolveAction = Schema.Literal("dismiss", "warn", "suspend_seller")
export type ResolveAction = typeof ResolveAction.Type

/** A timestamp, ISO 8601 UTC on the wire. */
export const Timestamp = Schema.Date
export type Timestamp = typeof Timestamp.Type
