import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { expireLapsedOffers, rejectPendingOffers } from "../offers/Offer.js"
import { OfferRepo } from "../offers/Repo.js"
import { EventOutbox } from "../shared/EventOutbox.js"
import { expireRequest, remindOfExpiry } from "./BuyRequest.js"
import { RequestRepo } from "./Repo.js"

/**
 * The expiry job's steps on one request: writing down what the clock already shows, and queueing the pushes
 * it owes. Each step locks the request (then its offers), re-checks the rule on what it locked and answers
 * whether it changed anything, so a request another worker just handled is left alone. Run each inside a
 * `Transactor.transaction` of your own: finding which requests are due (and claiming them, so several workers
 * share the work) is the embedder's query.
 */
export class RequestExpiry extends Effect.Service<RequestExpiry>()("@talab/core/RequestExpiry", {
  effect: Effect.gen(function* () {
    const requests = yield* RequestRepo
    const offers = yield* OfferRepo
    const outbox = yield* EventOutbox

    /** The request's pending offers whose `validUntil` passed by `at` become `expired` and leave its count. */
    const expireLapsedOffersOf = (requestId: string, at: Date) =>
      Effect.gen(function* () {
        const request = yield* requests.lock(requestId)
        if (Option.isNone(request)) return false
        const lapsed = expireLapsedOffers(request.value, yield* offers.lockLapsed(requestId, at), at)
        yield* offers.updateStatus(lapsed.expired, at)
        yield* requests.update(lapsed.request)
        yield* outbox.append(lapsed.events, at)
        return lapsed.expired.length > 0
      })

    /** An active request past its expiry at `at` becomes `expired`, its pending offers rejected (lapsed ones expired). */
    const expireIfLapsed = (requestId: string, at: Date) =>
      Effect.gen(function* () {
        const locked = yield* requests.lock(requestId)
        if (Option.isNone(locked)) return false
        const lapsed = expireLapsedOffers(locked.value, yield* offers.lockByRequest(requestId), at)
        const expired = expireRequest(lapsed.request, at)
        if (expired === undefined) return false
        const { rejected, events } = rejectPendingOffers(lapsed.offers)
        yield* offers.updateStatus([...lapsed.expired, ...rejected], at)
        yield* requests.update(expired.state)
        yield* outbox.append([...lapsed.events, ...expired.events, ...events], at)
        return true
      })

    /** An active request a day or less from its expiry, not reminded yet, owes its buyer the reminder. */
    const remindIfDue = (requestId: string, at: Date) =>
      Effect.gen(function* () {
        const locked = yield* requests.lock(requestId)
        if (Option.isNone(locked)) return false
        const reminded = remindOfExpiry(locked.value, at)
        if (reminded === undefined) return false
        yield* requests.update(reminded.state)
        yield* outbox.append(reminded.events, at)
        return true
      })

    return { expireLapsedOffersOf, expireIfLapsed, remindIfDue } as const
  })
}) {}
