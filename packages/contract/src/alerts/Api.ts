import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { AlertRule, Category, QuietHours } from "@talab/core"
import * as Schema from "effect/Schema"
import {
  BusinessRuleResponse,
  ForbiddenResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok,
  OkMessage
} from "../http/Envelope.js"
import { Money, OneOf, Optional, Payload, problemMessage, StringField, Text } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { Authentication } from "../http/Security.js"
import { entityView } from "../http/Views.js"

/** Most alert rules a seller may keep; the next one is refused with 422 ALERT_RULE_LIMIT_REACHED. */
export const MAX_ALERT_RULES = 20
/** Most cities one rule may list. */
export const MAX_ALERT_CITIES = 20

/** An alert rule: requests of one of `categories`, in one of `cities`, whose budget meets [price_min, price_max]. */
export const AlertRuleView = entityView(AlertRule.fields)

/** An array of `item` with between min and max items. */
const ArrayOf = <A, I>(item: Schema.Schema<A, I>, min: number, max: number, key: string) =>
  Schema.Array(item).pipe(
    Schema.filter((items) => items.length >= min && items.length <= max, {
      message: () => problemMessage(key, { max }),
      jsonSchema: { minItems: min, maxItems: max }
    })
  )

export const NewAlertRule = Payload({
  categories: ArrayOf(OneOf(...Category.literals), 1, Category.literals.length, "alert_categories_count"),
  cities: ArrayOf(Text(1, 100), 1, MAX_ALERT_CITIES, "alert_cities_count"),
  price_min: Optional(Money),
  price_max: Optional(Money)
}).pipe(
  Schema.filter((body) =>
    body.price_min === undefined || body.price_max === undefined || body.price_max >= body.price_min
      ? true
      : { path: ["price_max"], message: problemMessage("alert_price_max_below_min") }
  )
)

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone })
    return zone.includes("/") || zone === "UTC"
  } catch {
    return false
  }
}

/** A local time of day, `HH:MM` (24 hours). */
const LocalTime = StringField.pipe(
  Schema.filter((s) => /^([01][0-9]|2[0-3]):[0-5][0-9]$/.test(s), {
    message: () => problemMessage("quiet_time_format"),
    jsonSchema: { pattern: "^([01][0-9]|2[0-3]):[0-5][0-9]$" }
  })
)

/** Quiet hours: from `quiet_from` to `quiet_to` (may wrap past midnight) in `time_zone`; all null: none. */
export const AlertSettingsView = entityView(QuietHours.fields)

export const AlertSettingsInput = Payload({
  quiet_from: Schema.NullOr(LocalTime),
  quiet_to: Schema.NullOr(LocalTime),
  time_zone: Schema.NullOr(
    StringField.pipe(
      Schema.filter(isTimeZone, {
        message: () => problemMessage("quiet_time_zone_unknown"),
        jsonSchema: { description: "An IANA time zone, e.g. Asia/Riyadh" }
      })
    )
  )
}).pipe(
  Schema.filter((body) => {
    const given = [body.quiet_from, body.quiet_to, body.time_zone].filter((value) => value !== null).length
    if (given !== 0 && given !== 3) return { path: ["quiet_from"], message: problemMessage("quiet_hours_incomplete") }
    if (given === 3 && body.quiet_from === body.quiet_to)
      return { path: ["quiet_to"], message: problemMessage("quiet_hours_empty") }
    return true
  })
)

/** An approved seller's alerts for new requests that match their rules, and their quiet hours. */
export class SellerAlertsApi extends HttpApiGroup.make("sellerAlerts")
  .add(
    HttpApiEndpoint.get("listRules", "/alerts")
      .addSuccess(Ok(Schema.Struct({ alerts: Schema.Array(AlertRuleView) })))
      .addError(ForbiddenResponse)
  )
  .add(
    HttpApiEndpoint.post("createRule", "/alerts")
      .setPayload(NewAlertRule)
      .addSuccess(Ok(AlertRuleView), { status: 201 })
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
  )
  .add(
    HttpApiEndpoint.del("deleteRule", "/alerts/:id")
      .setPath(IdPath)
      .addSuccess(OkMessage)
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
  )
  .add(
    HttpApiEndpoint.get("getSettings", "/alert-settings").addSuccess(Ok(AlertSettingsView)).addError(ForbiddenResponse)
  )
  .add(
    HttpApiEndpoint.put("putSettings", "/alert-settings")
      .setPayload(AlertSettingsInput)
      .addSuccess(Ok(AlertSettingsView))
      .addError(ForbiddenResponse)
  )
  .middleware(Authentication)
  .prefix("/seller-profiles/me") {}
