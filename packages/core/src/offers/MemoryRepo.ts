import * as Arr from "effect/Array"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { insertNew, newestFirst, rowsWhere, rowWhere, unchanged } from "../memory/Rows.js"
import { MemoryStore, UniqueViolation } from "../memory/Store.js"
import { type Offer, statusEventOf } from "./Offer.js"
import { OfferRepo } from "./Repo.js"

/** Throws when the offers of `requestIds` break a rule of the offers table: one pending offer per seller per request, one accepted offer per request. */
const checkOfferRules = (offers: HashMap.HashMap<string, Offer>, requestIds: ReadonlySet<string>) => {
  const pending = new Set<string>()
  const accepted = new Set<string>()
  for (const offer of HashMap.values(offers)) {
    if (!requestIds.has(offer.requestId)) continue
    if (offer.status === "pending") {
      const key = `${offer.requestId} ${offer.sellerId}`
      if (pending.has(key)) throw new UniqueViolation({ constraint: "offers_one_pending_per_seller" })
      pending.add(key)
    } else if (offer.status === "accepted") {
      if (accepted.has(offer.requestId)) throw new UniqueViolation({ constraint: "offers_one_accepted_per_request" })
      accepted.add(offer.requestId)
    }
  }
}

/** {@link OfferRepo} over the {@link MemoryStore}: one pending offer per seller per request, one accepted per request. */
export const MemoryOfferRepo = Layer.effect(
  OfferRepo,
  Effect.map(MemoryStore, (store) => {
    const lockWhere = (matches: (offer: Offer) => boolean) =>
      store.write((t) => unchanged(rowsWhere(t.offers, matches).sort(newestFirst), t))
    return OfferRepo.of({
      insertUnlessPending: (offer) =>
        store.write((t) => {
          const pendingOfSeller =
            offer.status === "pending" &&
            Option.isSome(
              rowWhere(
                t.offers,
                (o) => o.requestId === offer.requestId && o.sellerId === offer.sellerId && o.status === "pending"
              )
            )
          if (pendingOfSeller) return unchanged(false, t)
          const next = insertNew(t, "offers", offer.id, offer, "offers_pkey")
          checkOfferRules(next.offers, new Set([offer.requestId]))
          return [true, next]
        }),
      findById: (id) => store.read((t) => HashMap.get(t.offers, id)),
      lock: (id) => store.write((t) => unchanged(HashMap.get(t.offers, id), t)),
      lockByRequest: (requestId) => lockWhere((o) => o.requestId === requestId),
      lockLapsed: (requestId, now) =>
        lockWhere(
          (o) => o.requestId === requestId && o.status === "pending" && o.validUntil !== null && o.validUntil <= now
        ),
      pendingIdsOfSeller: (sellerId) =>
        store.read((t) =>
          rowsWhere(t.offers, (o) => o.sellerId === sellerId && o.status === "pending").map((o) => o.id)
        ),
      lockPendingBySeller: (sellerId) => lockWhere((o) => o.sellerId === sellerId && o.status === "pending"),
      updateStatus: (changes, at) =>
        store.write((t) => {
          const touched = new Set<string>()
          const offers = changes.reduce(
            (rows, { id, status }) =>
              HashMap.modify(rows, id, (offer) => {
                touched.add(offer.requestId)
                return { ...offer, status }
              }),
            t.offers
          )
          checkOfferRules(offers, touched)
          const ended =
            at === undefined
              ? []
              : Arr.getSomes(
                  changes.map(({ id }) => Option.flatMap(HashMap.get(offers, id), (offer) => statusEventOf(offer, at)))
                )
          return [undefined, { ...t, offers, offerEvents: Chunk.appendAll(t.offerEvents, Chunk.fromIterable(ended)) }]
        }),
      revise: (offer) =>
        store.write((t) => [
          undefined,
          {
            ...t,
            offers: HashMap.modify(t.offers, offer.id, (stored) => ({
              ...stored,
              price: offer.price,
              availability: offer.availability,
              conditionNotes: offer.conditionNotes,
              warrantyNotes: offer.warrantyNotes,
              revision: offer.revision
            }))
          }
        ]),
      insertCounter: (counter) =>
        store.write((t) => [undefined, insertNew(t, "offerCounters", counter.id, counter, "offer_counters_pkey")]),
      countCounters: (offerId) => store.read((t) => rowsWhere(t.offerCounters, (c) => c.offerId === offerId).length),
      appendHistory: (events) =>
        store.write((t) => [
          undefined,
          { ...t, offerEvents: Chunk.appendAll(t.offerEvents, Chunk.fromIterable(events)) }
        ]),
      history: (offerId) =>
        store.read((t) => Chunk.toReadonlyArray(Chunk.filter(t.offerEvents, (e) => e.offerId === offerId)))
    })
  })
)
