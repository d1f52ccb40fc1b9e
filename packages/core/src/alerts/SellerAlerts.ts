import * as Schema from "effect/Schema"
import { Category } from "../shared/Values.js"

/** A seller's alert rule: requests of one of `categories`, in one of `cities`, whose budget meets [priceMin, priceMax]. */
export const AlertRule = Schema.Struct({
  id: Schema.UUID,
  categories: Schema.Array(Category),
  cities: Schema.Array(Schema.String),
  priceMin: Schema.NullOr(Schema.Number),
  priceMax: Schema.NullOr(Schema.Number),
  createdAt: Schema.DateFromSelf
})
export interface AlertRule extends Schema.Schema.Type<typeof AlertRule> {}

/** What a seller asks for when adding a rule. */
export type AlertRuleInput = Omit<AlertRule, "id" | "createdAt">

/** A seller's quiet hours: from `quietFrom` to `quietTo` (may wrap past midnight) in `timeZone`; all null: none. */
export const QuietHours = Schema.Struct({
  quietFrom: Schema.NullOr(Schema.String),
  quietTo: Schema.NullOr(Schema.String),
  timeZone: Schema.NullOr(Schema.String)
})
export interface QuietHours extends Schema.Schema.Type<typeof QuietHours> {}
