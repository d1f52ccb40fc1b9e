import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, CurrentUser, translate } from "@talab/contract"
import { Offers } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { requestLanguage, respond } from "../http/Localize.js"
import { pageRequest, paginationFor } from "../http/Paging.js"
import { OfferQueries } from "./Queries.js"
import { OffersService } from "./Service.js"

const OffersHttp = HttpApiBuilder.group(Api, "offers", (handlers) =>
  Effect.gen(function* () {
    const service = yield* OffersService
    const workflows = yield* Offers
    const queries = yield* OfferQueries
    return handlers
      .handle("create", ({ payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const { offer, outsideBudget } = yield* workflows.create(user, payload)
            // A price outside the budget is allowed; the seller is only warned.
            return outsideBudget
              ? { data: offer, message: translate("price_outside_budget", yield* requestLanguage) }
              : { data: offer }
          })
        )
      )
      .handle("listForRequest", ({ path, urlParams }) =>
        respond(
          Effect.flatMap(CurrentUser, ({ user }) => service.listForRequest(user, path.id, urlParams.sort)).pipe(
            Effect.map((offers) => ({ offers }))
          )
        )
      )
      .handle("listMine", ({ urlParams }) => {
        const page = pageRequest(urlParams)
        return respond(
          Effect.flatMap(CurrentUser, ({ user }) => queries.listMine(user.id, urlParams.status, page)).pipe(
            Effect.map(({ items, total }) => ({ offers: items, pagination: paginationFor(page, total) }))
          )
        )
      })
      .handle("accept", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const deal = yield* workflows.accept(user, path.id)
            return { deal }
          })
        )
      )
      .handle("withdraw", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            yield* workflows.withdraw(user, path.id)
            return translate("offer_withdrawn", yield* requestLanguage)
          })
        )
      )
  })
)

/** Offers: the REST handlers with their own service and read queries (one instance, shared). */
export const OffersLive = OffersHttp.pipe(
  Layer.provide([
    Offers.Default,
    OffersService.DefaultWithoutDependencies.pipe(Layer.provideMerge(OfferQueries.Default))
  ])
)
