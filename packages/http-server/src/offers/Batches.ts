import { SqlClient, SqlSchema } from "@effect/sql"
import {
  BuyRequest,
  ConversationRepo,
  createdEventOf,
  createOffer,
  type DomainEvent,
  EventOutbox,
  effectiveRequest,
  expireLapsedOffers,
  Ids,
  newOfferOf,
  Offer,
  type OfferInput,
  OfferRepo,
  Offers,
  priceOutsideBudget,
  RequestRepo,
  requireFound,
  requireValidUntilInRange,
  snakeCaseKeys,
  Transactor,
  type User
} from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Str from "effect/String"
import { batchingOn, makeWriteBatches, WRITE_BATCH_LIMITS } from "../db/WriteBatches.js"
import { REQUEST_LISTS, requestTag, sellerTag } from "../readcache/ReadCache.js"
import { makeReadsChanged } from "../readcache/ReadsChanged.js"
import { lockProfilesShared } from "../sellers/SqlSellerProfileRepo.js"

interface Proposal {
  readonly seller: User
  readonly input: OfferInput
}

type Made = Effect.Effect.Success<ReturnType<Offers["create"]>>
type MakeError = Effect.Effect.Error<ReturnType<Offers["create"]>>

const OfferRow = snakeCaseKeys(Offer.fields)
const RequestRow = snakeCaseKeys(BuyRequest.fields)

/** The batch cannot be written as planned (a pending offer committed meanwhile): each offer again alone. */
class BatchFallback {
  readonly _tag = "BatchFallback"
}

const foundRequest = requireFound("request")

/**
 * Makes an offer as core's `Offers.create` does, in one transaction with the offers made at the same moment
 * (`OFFER_BATCH=on`, the default). The batch takes the locks `Offers.create` takes, each kind in one statement:
 * the sellers' profiles (shared), then the requests (in id order), then their lapsed offers, which are expired
 * first as `create` expires them. Each offer is then checked on its own, against its request as the offers
 * before it in the batch left it (its count, its state), so a refused one gets its own error and leaves the
 * rest; the offers are inserted in one statement, and their history, conversations, requests' counts and events
 * go with the commit. An offer with photos is made alone: a photo that is not the seller's to attach fails its
 * own offer only. A seller offering twice on one request in a batch, or a pending offer that committed beside
 * it, sends the whole batch back through `Offers.create` one by one, which answers the duplicate as it always
 * has.
 */
export const makeOfferProposals = Effect.gen(function* () {
  const offers = yield* Offers
  const alone = ({ input, seller }: Proposal) => offers.create(seller, input)
  if (!(yield* batchingOn((config) => config.offerBatch)))
    return (seller: User, input: OfferInput) => alone({ seller, input })

  const sql = yield* SqlClient.SqlClient
  const offerRepo = yield* OfferRepo
  const requestRepo = yield* RequestRepo
  const conversations = yield* ConversationRepo
  const outbox = yield* EventOutbox
  const transactor = yield* Transactor
  const ids = yield* Ids
  const reads = yield* makeReadsChanged

  const lockProfiles = lockProfilesShared(sql)
  const lockRequests = SqlSchema.findAll({
    Request: Schema.Array(Schema.String),
    Result: RequestRow,
    execute: (requestIds) => sql`
      SELECT * FROM buy_requests WHERE id IN ${sql.in(requestIds)} ORDER BY id FOR UPDATE`
  })
  const lockLapsed = SqlSchema.findAll({
    Request: Schema.Struct({ requestIds: Schema.Array(Schema.String), now: Schema.DateFromSelf }),
    Result: OfferRow,
    execute: ({ now, requestIds }) => sql`
      SELECT * FROM offers WHERE request_id IN ${sql.in(requestIds)} AND talab_offer_lapsed(status, valid_until, ${now})
      ORDER BY created_at DESC, id DESC FOR UPDATE`
  })
  // The arbiter is the partial unique index offers_one_pending_per_seller, as for one offer.
  const insertUnlessPending = SqlSchema.findAll({
    Request: Schema.Array(OfferRow),
    Result: Schema.Struct({ id: Schema.String }),
    execute: (rows) => sql`
      INSERT INTO offers ${sql.insert(rows)}
      ON CONFLICT (request_id, seller_id) WHERE status = 'pending' DO NOTHING
      RETURNING id`
  })

  const storeBatch = (batch: ReadonlyArray<Proposal>) =>
    transactor.transaction(
      Effect.gen(function* () {
        const at = new Date(yield* Clock.currentTimeMillis)
        const sellerIds = [...new Set(batch.map((p) => p.seller.id))].sort()
        const requestIds = [...new Set(batch.map((p) => p.input.requestId))].sort()
        const pairs = new Set(batch.map((p) => `${p.input.requestId}\n${p.seller.id}`))
        if (pairs.size !== batch.length) return yield* Effect.fail(new BatchFallback())
        const profiles = new Map((yield* lockProfiles(sellerIds)).map((p) => [p.userId, p] as const))
        const locked = new Map((yield* lockRequests(requestIds)).map((r) => [r.id, r] as const))
        const lapsedOf = new Map<string, Array<Offer>>()
        for (const offer of yield* lockLapsed({ requestIds, now: at })) {
          lapsedOf.set(offer.requestId, [...(lapsedOf.get(offer.requestId) ?? []), offer])
        }
        // Each request as the batch leaves it so far: its lapsed offers expired, then each offer made on it counted.
        // As in `Offers.create`, the lapsed offers are written expired only with an offer made on their request.
        const current = new Map<string, BuyRequest>()
        const lapsedOnes = new Map<string, ReturnType<typeof expireLapsedOffers>>()
        for (const [id, request] of locked) {
          const lapsed = expireLapsedOffers(request, lapsedOf.get(id) ?? [], at)
          lapsedOnes.set(id, lapsed)
          current.set(id, effectiveRequest(lapsed.request, at))
        }
        const changed = new Set<string>()
        const events: Array<DomainEvent> = []
        const made = yield* Effect.forEach(batch, ({ input, seller }) =>
          Effect.either(
            Effect.gen(function* () {
              yield* requireValidUntilInRange(input, at)
              const request = yield* foundRequest(Option.fromNullable(current.get(input.requestId)))
              const conversationId = yield* ids.next
              const { state, events: raised } = yield* createOffer({
                input: newOfferOf(yield* ids.next, seller.id, input),
                request,
                sellerProfile: profiles.get(seller.id) ?? null,
                conversationId,
                now: at
              })
              current.set(request.id, state.request)
              if (!changed.has(request.id)) {
                changed.add(request.id)
                events.push(...lapsedOnes.get(request.id)!.events)
              }
              events.push(...raised)
              return { offer: state.offer, request: state.request, conversationId }
            })
          )
        )
        const created = made.flatMap((m) => (Either.isRight(m) ? [m.right] : []))
        const expired = [...changed].flatMap((id) => lapsedOnes.get(id)!.expired)
        if (expired.length > 0) yield* offerRepo.updateStatus(expired, at)
        if (created.length > 0) {
          // By seller: an offer answering an alert locks its seller's figures (the trust trigger, migration 0015),
          // and batches that take those rows in one order cannot deadlock.
          const inserted = yield* insertUnlessPending(
            created.map((c) => c.offer).sort((a, b) => Str.Order(a.sellerId, b.sellerId))
          )
          // A pending offer of one of these sellers committed meanwhile: the batch goes back, each offer alone.
          if (inserted.length !== created.length) return yield* Effect.fail(new BatchFallback())
          yield* reads.changed([
            REQUEST_LISTS,
            ...new Set(created.flatMap((c) => [requestTag(c.offer.requestId), sellerTag(c.offer.sellerId)]))
          ])
          yield* offerRepo.appendHistory(created.map((c) => createdEventOf(c.offer)))
          for (const { conversationId, offer, request } of created) {
            yield* conversations.insert({
              id: conversationId,
              offerId: offer.id,
              buyerId: request.buyerId,
              sellerId: offer.sellerId,
              createdAt: at,
              lastMessageAt: null
            })
          }
        }
        // Every request an offer was made on, as the batch left it: its expired offers and its new ones counted.
        for (const id of changed) yield* requestRepo.update(current.get(id)!)
        yield* outbox.append(events, at)
        return made.map(
          (m): Exit.Exit<Made, MakeError> =>
            Either.isLeft(m)
              ? Exit.fail(m.left)
              : Exit.succeed({
                  offer: m.right.offer,
                  buyerId: m.right.request.buyerId,
                  outsideBudget: priceOutsideBudget(m.right.request, m.right.offer.price)
                })
        )
      })
    )

  const batched = yield* makeWriteBatches<Proposal, Made, MakeError>("offers", WRITE_BATCH_LIMITS, {
    batch: storeBatch,
    alone
  })
  return (seller: User, input: OfferInput) =>
    input.photoIds === undefined || input.photoIds.length === 0 ? batched({ seller, input }) : alone({ seller, input })
})
