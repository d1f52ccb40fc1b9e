import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, CurrentUser, translate } from "@talab/contract"
import { Offers } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ChatService } from "../chat/Service.js"
import { requestLanguage, respond } from "../http/Localize.js"
import { pageRequest, paginationFor } from "../http/Paging.js"
import { AttachedImages } from "../images/Attached.js"
import { RealtimeHub } from "../realtime/Hub.js"
import { makeOfferProposals } from "./Batches.js"
import { OfferQueries } from "./Queries.js"
import { OffersService } from "./Service.js"

const OffersHttp = HttpApiBuilder.group(Api, "offers", (handlers) =>
  Effect.gen(function* () {
    const service = yield* OffersService
    const workflows = yield* Offers
    const queries = yield* OfferQueries
    const chat = yield* ChatService
    const attached = yield* AttachedImages
    /** The offer as its two parties see it, with its photos. */
    const withPhotos = <A extends { readonly id: string }>(offer: A) =>
      Effect.map(attached.withPhotos("offer", [offer]), ([shown]) => shown!)
    const hub = yield* RealtimeHub
    const propose = yield* makeOfferProposals
    return handlers
      .handle("create", ({ payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const { offer, buyerId, outsideBudget } = yield* propose(user, payload)
            // Live on the buyer's sockets, after the commit; the push (at most hourly per seller) is the outbox's.
            yield* hub.publishToUsers([buyerId], {
              event: "offer_created",
              data: {
                id: offer.id,
                requestId: offer.requestId,
                sellerId: offer.sellerId,
                price: offer.price,
                createdAt: offer.createdAt
              }
            })
            const data = yield* attached.withNewPhotos("offer", { ...offer, counter: null }, payload.photoIds)
            // A price outside the budget is allowed; the seller is only warned.
            return outsideBudget
              ? { data, message: translate("price_outside_budget", yield* requestLanguage) }
              : { data }
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
            Effect.flatMap(({ items, total }) =>
              Effect.map(attached.withPhotos("offer", items), (offers) => ({
                offers,
                pagination: paginationFor(page, total)
              }))
            )
          )
        )
      })
      .handle("accept", ({ path, payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const deal = yield* workflows.accept(user, path.id, payload)
            return { deal }
          })
        )
      )
      .handle("counter", ({ path, payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const { conversation, message, result } = yield* workflows.counter(user, path.id, payload)
            yield* chat.deliverStored(conversation, message)
            return yield* withPhotos(result)
          })
        )
      )
      .handle("revise", ({ path, payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const { conversation, message, result } = yield* workflows.revise(user, path.id, payload)
            yield* chat.deliverStored(conversation, message)
            // A revision clears the counter: it answered the revision before.
            return yield* withPhotos({ ...result, counter: null })
          })
        )
      )
      .handle("history", ({ path }) =>
        respond(
          Effect.flatMap(CurrentUser, ({ user }) => workflows.history(user, path.id)).pipe(
            Effect.map((events) => ({ events }))
          )
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
    ChatService.Default,
    OffersService.DefaultWithoutDependencies.pipe(Layer.provideMerge(OfferQueries.Default))
  ])
)
