import * as Schema from "effect/Schema"
import { AlertKeyword, MAX_ALERT_KEYWORDS } from "../search/Search.js"
import { fieldRule, Money, OneOf, Optional, StringField, Text } from "../shared/Fields.js"
import { Category } from "../shared/Values.js"

/** Most alert rules a seller may keep; the next one is refused with `AlertRuleLimitReached`. */
export const MAX_ALERT_RULES = 20
/** Most cities one rule may list. */
export const MAX_ALERT_CITIES = 20

/**
 * A seller's alert rule: requests of one of `categories`, in one of `cities`, whose budget meets [priceMin,
 * priceMax], and that every one of `keywords` finds as a search would (none: any request).
 */
export const AlertRule = Schema.Struct({
  id: Schema.UUID,
  categories: Schema.Array(Category),
  cities: Schema.Array(Schema.String),
  priceMin: Schema.NullOr(Schema.Number),
  priceMax: Schema.NullOr(Schema.Number),
  keywords: Schema.Array(Schema.String).annotations({
    description: "Words every one of which a matching request must contain, as a search finds them; empty: any request"
  }),
  createdAt: Schema.DateFromSelf
})
export interface AlertRule extends Schema.Schema.Type<typeof AlertRule> {}

/** An array of `item` with between min and max items; any other count is the problem `key`. */
const ArrayOf = <A, I>(item: Schema.Schema<A, I>, min: number, max: number, key: string) =>
  Schema.Array(item).pipe(
    Schema.filter((items) => items.length >= min && items.length <= max, {
      ...fieldRule(key, { max }),
      jsonSchema: { minItems: min, maxItems: max }
    })
  )

/**
 * What a seller asks for when adding a rule: the categories (1 or more) and cities (1 to {@link MAX_ALERT_CITIES})
 * a new request must match, an optional price range its budget must meet, and optional keywords (1 to
 * {@link MAX_ALERT_KEYWORDS}) it must contain. That `priceMax` is not below
 * `priceMin` is checked where the input is decoded, so the failure names the field as the client spelled it.
 */
export const AlertRuleInput = Schema.Struct({
  categories: ArrayOf(OneOf(...Category.literals), 1, Category.literals.length, "alert_categories_count"),
  cities: ArrayOf(Text(1, 100), 1, MAX_ALERT_CITIES, "alert_cities_count"),
  priceMin: Optional(Money),
  priceMax: Optional(Money),
  keywords: Optional(ArrayOf(AlertKeyword, 1, MAX_ALERT_KEYWORDS, "alert_keywords_count"))
})
export type AlertRuleInput = typeof AlertRuleInput.Type

/** A seller's quiet hours: from `quietFrom` to `quietTo` (may wrap past midnight) in `timeZone`; all null: none. */
export const QuietHours = Schema.Struct({
  quietFrom: Schema.NullOr(Schema.String),
  quietTo: Schema.NullOr(Schema.String),
  timeZone: Schema.NullOr(Schema.String)
})
export interface QuietHours extends Schema.Schema.Type<typeof QuietHours> {}

const LOCAL_TIME = /^([01][0-9]|2[0-3]):[0-5][0-9]$/

/** A local time of day, `HH:MM` (24 hours). */
const LocalTime = StringField.pipe(
  Schema.filter((s) => LOCAL_TIME.test(s), {
    ...fieldRule("quiet_time_format"),
    jsonSchema: { pattern: LOCAL_TIME.source }
  })
)

/** Whether `zone` is a time zone the runtime knows, named Area/Location as the IANA database names them (or UTC). */
const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone })
    return zone.includes("/") || zone === "UTC"
  } catch {
    return false
  }
}

/** An IANA time zone (`Asia/Riyadh`). */
const TimeZone = StringField.pipe(
  Schema.filter(isTimeZone, {
    ...fieldRule("quiet_time_zone_unknown"),
    jsonSchema: { description: "An IANA time zone, e.g. Asia/Riyadh" }
  })
)

/**
 * What a seller sets as quiet hours: `HH:MM` times and an IANA time zone. That all three are given or all null,
 * and that the hours are not empty, is checked where the input is decoded, so the failure names the field as the
 * client spelled it.
 */
export const QuietHoursInput = Schema.Struct({
  quietFrom: Schema.NullOr(LocalTime),
  quietTo: Schema.NullOr(LocalTime),
  timeZone: Schema.NullOr(TimeZone)
})
export type QuietHoursInput = typeof QuietHoursInput.Type
