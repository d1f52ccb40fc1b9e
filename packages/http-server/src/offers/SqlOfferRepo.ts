import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { endingMoves, Offer, OfferCounter, OfferEvent, OfferRepo, snakeCaseKeys } from "@talab/core"
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { deferredWrites, insertWrite } from "../db/DeferredWrites.js"
import { REQUEST_LISTS, requestTag, sellerTag } from "../readcache/ReadCache.js"
import { makeReadsChanged } from "../readcache/ReadsChanged.js"

/** An offer as stored: the entity under its column names. */
const OfferRow = snakeCaseKeys(Offer.fields)

/** A counter as stored. */
const CounterRow = snakeCaseKeys(OfferCounter.fields)

/** A line of an offer's history as stored (its `position` orders it). */
const EventRow = snakeCaseKeys(OfferEvent.fields)

export const SqlOfferRepo = Layer.effect(
  OfferRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const reads = yield* makeReadsChanged
    // An offer shows in its request's count and state, and its seller's trust figures (first-offer time).
    const offerTags = (offer: Pick<Offer, "requestId" | "sellerId">) => [
      REQUEST_LISTS,
      requestTag(offer.requestId),
      sellerTag(offer.sellerId)
    ]

    const findOne = (execute: (id: string) => Statement.Statement<object>) =>
      SqlSchema.findOne({ Request: Schema.String, Result: OfferRow, execute })
    const findById = findOne((id) => sql`SELECT * FROM offers WHERE id = ${id}`)
    const lock = findOne((id) => sql`SELECT * FROM offers WHERE id = ${id} FOR UPDATE`)
    // The arbiter is the partial unique index offers_one_pending_per_seller.
    const insertUnlessPending = SqlSchema.findAll({
      Request: OfferRow,
      Result: Schema.Struct({ id: Schema.String }),
      execute: (row) => sql`
        INSERT INTO offers ${sql.insert(row)}
        ON CONFLICT (request_id, seller_id) WHERE status = 'pending' DO NOTHING
        RETURNING id`
    })
    const lockByRequest = SqlSchema.findAll({
      Request: Schema.String,
      Result: OfferRow,
      execute: (requestId) =>
        sql`SELECT * FROM offers WHERE request_id = ${requestId} ORDER BY created_at DESC, id DESC FOR UPDATE`
    })
    const lockPendingBySeller = SqlSchema.findAll({
      Request: Schema.String,
      Result: OfferRow,
      execute: (sellerId) =>
        sql`SELECT * FROM offers WHERE seller_id = ${sellerId} AND status = 'pending'
            ORDER BY created_at DESC, id DESC FOR UPDATE`
    })
    const lockLapsed = SqlSchema.findAll({
      Request: Schema.Struct({ requestId: Schema.String, now: Schema.DateFromSelf }),
      Result: OfferRow,
      execute: ({ requestId, now }) =>
        sql`SELECT * FROM offers WHERE request_id = ${requestId} AND talab_offer_lapsed(status, valid_until, ${now})
            ORDER BY created_at DESC, id DESC FOR UPDATE`
    })
    type Changed = Pick<Offer, "requestId" | "sellerId">
    const setStatus = (status: Offer["status"], ids: ReadonlyArray<string>) =>
      sql<Changed>`UPDATE offers SET status = ${status} WHERE id IN ${sql.in(ids)}
        RETURNING request_id AS "requestId", seller_id AS "sellerId"`
    // A status that ends an offer adds its history line in the same statement, with the price and revision stored.
    const setStatusInHistory = (status: Offer["status"], ids: ReadonlyArray<string>, at: Date | undefined) => {
      const by = endingMoves[status]
      if (at === undefined || by === undefined) return setStatus(status, ids)
      return sql<Changed>`
        WITH changed AS (
          UPDATE offers SET status = ${status} WHERE id IN ${sql.in(ids)}
          RETURNING id, price, revision, request_id, seller_id
        ), history AS (
          INSERT INTO offer_events (offer_id, type, price, by, revision, created_at)
          SELECT id, ${status}, price, ${by}, revision, ${at} FROM changed ORDER BY id
        )
        SELECT request_id AS "requestId", seller_id AS "sellerId" FROM changed`
    }
    const revise = SqlSchema.void({
      Request: OfferRow,
      execute: (row) => sql`
        UPDATE offers SET price = ${row.price}, availability = ${row.availability},
          condition_notes = ${row.condition_notes}, warranty_notes = ${row.warranty_notes}, revision = ${row.revision}
        WHERE id = ${row.id}`
    })
    const insertCounter = SqlSchema.void({
      Request: CounterRow,
      execute: (row) => deferredWrites(sql, [insertWrite("offer_counters", [row])])
    })
    const countCounters = SqlSchema.single({
      Request: Schema.String,
      Result: Schema.Struct({ count: Schema.Number }),
      execute: (offerId) => sql`SELECT count(*)::int AS count FROM offer_counters WHERE offer_id = ${offerId}`
    })
    const appendHistory = SqlSchema.void({
      Request: Schema.Array(EventRow),
      execute: (rows) => deferredWrites(sql, [insertWrite("offer_events", rows)])
    })
    const history = SqlSchema.findAll({
      Request: Schema.String,
      Result: EventRow,
      execute: (offerId) => sql`
        SELECT offer_id, type, price, by, revision, created_at FROM offer_events
        WHERE offer_id = ${offerId} ORDER BY position`
    })

    return OfferRepo.of({
      insertUnlessPending: (offer) =>
        insertUnlessPending(offer).pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie,
          Effect.tap((inserted) => (inserted ? reads.changed(offerTags(offer)) : Effect.void))
        ),
      findById: (id) => findById(id).pipe(Effect.orDie),
      lock: (id) => lock(id).pipe(Effect.orDie),
      lockByRequest: (requestId) => lockByRequest(requestId).pipe(Effect.orDie),
      pendingIdsOfSeller: (sellerId) =>
        sql<{ id: string }>`
          SELECT id FROM offers WHERE seller_id = ${sellerId} AND status = 'pending' ORDER BY id`.pipe(
          Effect.map((rows) => rows.map((row) => row.id)),
          Effect.orDie
        ),
      lockLapsed: (requestId, now) => lockLapsed({ requestId, now }).pipe(Effect.orDie),
      lockPendingBySeller: (sellerId) => lockPendingBySeller(sellerId).pipe(Effect.orDie),
      // One statement per target status; a batch is normally all `rejected`.
      updateStatus: (offers, at) =>
        Effect.forEach(Object.entries(Arr.groupBy(offers, (offer) => offer.status)), ([status, group]) =>
          setStatusInHistory(
            status as Offer["status"],
            group.map((offer) => offer.id),
            at
          )
        ).pipe(
          Effect.orDie,
          Effect.flatMap((changed) => reads.changed(changed.flat().flatMap(offerTags)))
        ),
      revise: (offer) => revise(offer).pipe(Effect.orDie, Effect.zipRight(reads.changed(offerTags(offer)))),
      insertCounter: (counter) => insertCounter(counter).pipe(Effect.orDie),
      countCounters: (offerId) =>
        countCounters(offerId).pipe(
          Effect.map((row) => row.count),
          Effect.orDie
        ),
      appendHistory: (events) => (events.length === 0 ? Effect.void : appendHistory(events).pipe(Effect.orDie)),
      history: (offerId) => history(offerId).pipe(Effect.orDie)
    })
  })
)
