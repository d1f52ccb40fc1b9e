import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { AlertRule, Category, QuietHours } from "@talab/core"
import * as Schema from "effect/Schema"
import { ErrorCases, RequestExample } from "../docs/Annotations.js"
import {
  BusinessRuleResponse,
  ForbiddenResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok,
  OkMessage
} from "../http/Envelope.js"
import { Money, OneOf, Optional, Payload, StringField, Text } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { failureAt, fieldProblem } from "../http/Problems.js"
import { ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"
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
      ...fieldProblem(key, { max }),
      jsonSchema: { minItems: min, maxItems: max }
    })
  )

/**
 * The body of POST /alerts: the categories (1 or more) and cities (1 to {@link MAX_ALERT_CITIES}) a new request
 * must match, and an optional price range its budget must meet (`price_max` not below `price_min`).
 */
export const NewAlertRule = Payload({
  categories: ArrayOf(OneOf(...Category.literals), 1, Category.literals.length, "alert_categories_count"),
  cities: ArrayOf(Text(1, 100), 1, MAX_ALERT_CITIES, "alert_cities_count"),
  price_min: Optional(Money),
  price_max: Optional(Money)
}).pipe(
  Schema.filter(
    (body, _, self) =>
      body.price_min === undefined ||
      body.price_max === undefined ||
      body.price_max >= body.price_min ||
      failureAt("price_max", body, self),
    fieldProblem("alert_price_max_below_min")
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
    ...fieldProblem("quiet_time_format"),
    jsonSchema: { pattern: "^([01][0-9]|2[0-3]):[0-5][0-9]$" }
  })
)

/** Quiet hours: from `quiet_from` to `quiet_to` (may wrap past midnight) in `time_zone`; all null: none. */
export const AlertSettingsView = entityView(QuietHours.fields)

/** How many of the three quiet-hours settings are given (not null): all or none is valid. */
const quietHoursGiven = (settings: { readonly [K in "quiet_from" | "quiet_to" | "time_zone"]: unknown }) =>
  [settings.quiet_from, settings.quiet_to, settings.time_zone].filter((value) => value !== null).length

/**
 * The body of PUT /alert-settings: quiet hours as `HH:MM` times and an IANA time zone, all three given or all null
 * (no quiet hours); matches in quiet hours are summed up in one push after them.
 */
export const AlertSettingsInput = Payload({
  quiet_from: Schema.NullOr(LocalTime),
  quiet_to: Schema.NullOr(LocalTime),
  time_zone: Schema.NullOr(
    StringField.pipe(
      Schema.filter(isTimeZone, {
        ...fieldProblem("quiet_time_zone_unknown"),
        jsonSchema: { description: "An IANA time zone, e.g. Asia/Riyadh" }
      })
    )
  )
}).pipe(
  Schema.filter((body, _, self) => {
    const given = quietHoursGiven(body)
    return given === 0 || given === 3 || failureAt("quiet_from", body, self)
  }, fieldProblem("quiet_hours_incomplete")),
  Schema.filter(
    (body, _, self) =>
      body.quiet_from === null || body.quiet_from !== body.quiet_to || failureAt("quiet_to", body, self),
    fieldProblem("quiet_hours_empty")
  )
)

const approvedSellerOnly = "Approved sellers only; anybody else gets 403 `SELLER_NOT_APPROVED`."

/** An approved seller's alerts for new requests that match their rules, and their quiet hours. */
export class SellerAlertsApi extends HttpApiGroup.make("sellerAlerts")
  .annotate(OpenApi.Title, "Seller alerts")
  .annotate(
    OpenApi.Description,
    "An approved seller's alert rules: a new request matching one (category, city, budget meeting the price range) sends them one `request_match` push and an `event` frame on their WebSocket user channel. Quiet hours hold the pushes and send one `request_match_summary` when they end. Any other caller gets 403 SELLER_NOT_APPROVED."
  )
  .add(
    HttpApiEndpoint.get("listRules", "/alerts")
      .addSuccess(Ok(Schema.Struct({ alerts: Schema.Array(AlertRuleView) })))
      .addError(ForbiddenResponse)
      .annotate(OpenApi.Summary, "List my alert rules")
      .annotate(
        OpenApi.Description,
        `${approvedSellerOnly} The caller's alert rules (at most 20), newest first, in \`data.alerts\`.`
      )
  )
  .add(
    HttpApiEndpoint.post("createRule", "/alerts")
      .setPayload(NewAlertRule)
      .addSuccess(Ok(AlertRuleView), { status: 201 })
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .annotate(OpenApi.Summary, "Add an alert rule")
      .annotate(
        OpenApi.Description,
        `${approvedSellerOnly} A request matches when its category is one of \`categories\`, its city one of \`cities\` (compared trimmed and case-insensitively) and its budget range meets [\`price_min\`, \`price_max\`] (either may be left out). Only requests created afterwards are matched; a request without a city matches no rule.`
      )
      .annotate(ErrorCases, { ALERT_RULE_LIMIT_REACHED: "the seller already has 20 rules; delete one first" })
      .annotate(RequestExample, {
        categories: ["phone"],
        cities: ["Riyadh", "Jeddah"],
        price_min: 1000,
        price_max: 4000
      })
  )
  .add(
    HttpApiEndpoint.del("deleteRule", "/alerts/:id")
      .setPath(IdPath)
      .addSuccess(OkMessage)
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .annotate(OpenApi.Summary, "Delete an alert rule")
      .annotate(OpenApi.Description, `${approvedSellerOnly} Deletes one of the caller's rules.`)
      .annotate(ErrorCases, { NOT_FOUND: "no rule of the caller has this id (another seller's rule included)" })
  )
  .add(
    HttpApiEndpoint.get("getSettings", "/alert-settings")
      .addSuccess(Ok(AlertSettingsView))
      .addError(ForbiddenResponse)
      .annotate(OpenApi.Summary, "Get my quiet hours")
      .annotate(
        OpenApi.Description,
        `${approvedSellerOnly} The caller's quiet hours; all three fields null when there are none (the default).`
      )
  )
  .add(
    HttpApiEndpoint.put("putSettings", "/alert-settings")
      .setPayload(AlertSettingsInput)
      .addSuccess(Ok(AlertSettingsView))
      .addError(ForbiddenResponse)
      .annotate(OpenApi.Summary, "Set my quiet hours")
      .annotate(
        OpenApi.Description,
        `${approvedSellerOnly} From \`quiet_from\` to \`quiet_to\` (HH:MM, may wrap past midnight) in \`time_zone\` (IANA), alert pushes are held and sent as one \`request_match_summary\` push when the quiet hours end. All three null removes them.`
      )
      .annotate(RequestExample, { quiet_from: "22:00", quiet_to: "07:00", time_zone: "Asia/Riyadh" })
  )
  .middleware(BodyCheck)
  .middleware(ApiRateLimit)
  .middleware(Authentication)
  .prefix("/seller-profiles/me") {}
