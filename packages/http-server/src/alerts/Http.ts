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
            return yield* service.createRule(user, payload)
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
            return yield* service.putSettings(user, payload)
          })
        )
      )
  })
)

/** Seller alerts: the REST handlers with their own services. */
export const SellerAlertsLive = SellerAlertsHttp.pipe(Layer.provide(SellerAlertsService.Default))
