import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { AlertRule, AlertRuleInput, QuietHours, QuietHoursInput } from "@talab/core"
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
import { PayloadOf } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { failureAt, fieldProblem } from "../http/Problems.js"
import { ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"
import { entityView } from "../http/Views.js"

/** An alert rule: requests of one of `categories`, in one of `cities`, whose budget meets [price_min, price_max]. */
export const AlertRuleView = entityView(AlertRule.fields)

/** The body of POST /alerts: core's input, with `price_max` not below `price_min`. */
export const NewAlertRule = PayloadOf(AlertRuleInput).pipe(
  Schema.filter(
    (body, _, self) =>
      body.priceMin === undefined ||
      body.priceMax === undefined ||
      body.priceMax >= body.priceMin ||
      failureAt("price_max", body, self),
    fieldProblem("alert_price_max_below_min")
  )
)

/** Quiet hours: from `quiet_from` to `quiet_to` (may wrap past midnight) in `time_zone`; all null: none. */
export const AlertSettingsView = entityView(QuietHours.fields)

/** How many of the three quiet-hours settings are given (not null): all or none is valid. */
const quietHoursGiven = (settings: QuietHoursInput) =>
  [settings.quietFrom, settings.quietTo, settings.timeZone].filter((value) => value !== null).length

/**
 * The body of PUT /alert-settings: core's input, all three given or all null (no quiet hours), and not empty;
 * matches in quiet hours are summed up in one push after them.
 */
export const AlertSettingsInput = PayloadOf(QuietHoursInput).pipe(
  Schema.filter((body, _, self) => {
    const given = quietHoursGiven(body)
    return given === 0 || given === 3 || failureAt("quiet_from", body, self)
  }, fieldProblem("quiet_hours_incomplete")),
  Schema.filter(
    (body, _, self) => body.quietFrom === null || body.quietFrom !== body.quietTo || failureAt("quiet_to", body, self),
    fieldProblem("quiet_hours_empty")
  )
)

const approvedSellerOnly = "Approved sellers only; anybody else gets 403 `SELLER_NOT_APPROVED`."

/** An approved seller's alerts for new requests that match their rules, and their quiet hours. */
export class SellerAlertsApi extends HttpApiGroup.make("sellerAlerts")
  .annotate(OpenApi.Title, "Seller alerts")
  .annotate(
    OpenApi.Description,
    "An approved seller's alert rules: a new request matching one (category, city, budget meeting the price range) sends them one `request_match` push and an `event` frame on their WebSocket user channel. Quiet hours hold the pushes and send one `request_match_summary` when they end; past REQUEST_MATCH_PUSHES_PER_HOUR alert pushes in an hour (10 by default), matches wait for one summary the same way. Any other caller gets 403 SELLER_NOT_APPROVED."
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
        price_max: 4000,
        keywords: ["ايفون", "Pro"]
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
