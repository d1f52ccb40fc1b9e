import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, CurrentUser, translate } from "@talab/contract"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { requestLanguage, respond } from "../http/Localize.js"
import { SellerAlertsService } from "./Service.js"

const SellerAlertsHttp = HttpApiBuilder.group(Api, "sellerAlerts", (handlers) =>
  Effect.gen(function* () {
    const service = yield* SellerAlertsService
    return handlers
      .handle("listRules", () =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const rules = yield* service.listRules(user)
            return { alerts: rules }
          })
        )
      )
      .handle("createRule", ({ payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const rule = yield* service.createRule(user, {
              categories: payload.categories,
              cities: payload.cities,
              priceMin: payload.price_min ?? null,
              priceMax: payload.price_max ?? null
            })
            return rule
          })
        )
      )
      .handle("deleteRule", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            yield* service.deleteRule(user, path.id)
            return translate("alert_rule_deleted", yield* requestLanguage)
          })
        )
      )
      .handle("getSettings", () =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            return yield* service.getSettings(user)
          })
        )
      )
      .handle("putSettings", ({ payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const settings = yield* service.putSettings(user, {
              quietFrom: payload.quiet_from,
              quietTo: payload.quiet_to,
              timeZone: payload.time_zone
            })
            return settings
          })
        )
      )
  })
)

/** Seller alerts: the REST handlers with their own services. */
export const SellerAlertsLive = SellerAlertsHttp.pipe(Layer.provide(SellerAlertsService.Default))
