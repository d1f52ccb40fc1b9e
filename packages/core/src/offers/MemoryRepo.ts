import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { Offer } from "../Offer.js"
import { DealRepo, OfferRepo, RatingRepo, ReportRepo, RequestRepo, SellerProfileRepo } from "../ports/Repositories.js"
import { insertNew, newestFirst, rowsWhere, rowWhere, unchanged } from "./Rows.js"
import { MemoryStore, type Tables, UniqueViolation } from "./Store.js"

/** Writes `row` over the stored row of the same id, keeping the columns an update never changes; no row, no write. */
const updateRow =
  <K extends "sellerProfiles" | "requests" | "deals" | "reports", V extends { readonly id: string }>(
    table: K,
    row: V,
    immutable: ReadonlyArray<keyof V>
  ) =>
  (tables: Tables): readonly [undefined, Tables] => {
    const rows = tables[table] as unknown as HashMap.HashMap<string, V>
    return Option.match(HashMap.get(rows, row.id), {
      onNone: () => unchanged(undefined, tables),
      onSome: (stored) => {
        const kept = Object.fromEntries(immutable.map((key) => [key, stored[key]]))
        return [undefined, { ...tables, [table]: HashMap.set(rows, row.id, { ...row, ...kept }) }]
      }
    })
  }

/** {@link SellerProfileRepo} over the {@link MemoryStore}: one profile per user. */
export const MemorySellerProfileRepo = Layer.effect(
  SellerProfileRepo,
  Effect.map(MemoryStore, (store) => {
    const byUserId = (userId: string) => (t: Tables) => rowWhere(t.sellerProfiles, (p) => p.userId === userId)
    return SellerProfileRepo.of({
      insertIfAbsent: (profile) =>
        store.write((t) =>
          Option.isSome(byUserId(profile.userId)(t))
            ? unchanged(false, t)
            : [true, insertNew(t, "sellerProfiles", profile.id, profile, "seller_profiles_pkey")]
        ),
      findById: (id) => store.read((t) => HashMap.get(t.sellerProfiles, id)),
      findByUserId: (userId) => store.read(byUserId(userId)),
      lock: (id) => store.write((t) => unchanged(HashMap.get(t.sellerProfiles, id), t)),
      lockByUserId: (userId) => store.write((t) => unchanged(byUserId(userId)(t), t)),
      lockSharedByUserId: (userId) => store.write((t) => unchanged(byUserId(userId)(t), t)),
      update: (profile) => store.write(updateRow("sellerProfiles", profile, ["userId", "createdAt"]))
    })
  })
)

/** {@link RequestRepo} over the {@link MemoryStore}. */
export const MemoryRequestRepo = Layer.effect(
  RequestRepo,
  Effect.map(MemoryStore, (store) =>
    RequestRepo.of({
      insert: (request) =>
        store.write((t) => [undefined, insertNew(t, "requests", request.id, request, "buy_requests_pkey")] as const),
      findById: (id) => store.read((t) => HashMap.get(t.requests, id)),
      lock: (id) => store.write((t) => unchanged(HashMap.get(t.requests, id), t)),
      update: (request) => store.write(updateRow("requests", request, ["buyerId", "createdAt"]))
    })
  )
)

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
      lockPendingBySeller: (sellerId) => lockWhere((o) => o.sellerId === sellerId && o.status === "pending"),
      updateStatus: (changes) =>
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
          return [undefined, { ...t, offers }]
        })
    })
  })
)

/** {@link DealRepo} over the {@link MemoryStore}: one deal per request and per offer. */
export const MemoryDealRepo = Layer.effect(
  DealRepo,
  Effect.map(MemoryStore, (store) =>
    DealRepo.of({
      insert: (deal) =>
        store.write((t) => {
          if (Option.isSome(rowWhere(t.deals, (d) => d.requestId === deal.requestId)))
            throw new UniqueViolation({ constraint: "deals_request_id_key" })
          if (Option.isSome(rowWhere(t.deals, (d) => d.offerId === deal.offerId)))
            throw new UniqueViolation({ constraint: "deals_offer_id_key" })
          return [undefined, insertNew(t, "deals", deal.id, deal, "deals_pkey")] as const
        }),
      findById: (id) => store.read((t) => HashMap.get(t.deals, id)),
      lock: (id) => store.write((t) => unchanged(HashMap.get(t.deals, id), t)),
      update: (deal) =>
        store.write(
          updateRow("deals", deal, ["requestId", "offerId", "buyerId", "sellerId", "conversationId", "createdAt"])
        )
    })
  )
)

/** {@link RatingRepo} over the {@link MemoryStore}: one rating per deal. */
export const MemoryRatingRepo = Layer.effect(
  RatingRepo,
  Effect.map(MemoryStore, (store) =>
    RatingRepo.of({
      insert: (rating) =>
        store.write((t) => {
          if (Option.isSome(rowWhere(t.ratings, (r) => r.dealId === rating.dealId)))
            throw new UniqueViolation({ constraint: "ratings_deal_id_key" })
          return [undefined, insertNew(t, "ratings", rating.id, rating, "ratings_pkey")] as const
        }),
      existsForDeal: (dealId) => store.read((t) => Option.isSome(rowWhere(t.ratings, (r) => r.dealId === dealId))),
      totalsForSeller: (sellerId) =>
        store.read((t) => {
          const ratings = rowsWhere(t.ratings, (r) => r.sellerId === sellerId)
          return { sum: ratings.reduce((sum, r) => sum + r.rating, 0), count: ratings.length }
        })
    })
  )
)

/** {@link ReportRepo} over the {@link MemoryStore}. */
export const MemoryReportRepo = Layer.effect(
  ReportRepo,
  Effect.map(MemoryStore, (store) =>
    ReportRepo.of({
      insert: (report) =>
        store.write((t) => [undefined, insertNew(t, "reports", report.id, report, "reports_pkey")] as const),
      lock: (id) => store.write((t) => unchanged(HashMap.get(t.reports, id), t)),
      update: (report) =>
        store.write(updateRow("reports", report, ["reporterId", "reportedUserId", "dealId", "createdAt"]))
    })
  )
)
