import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { Offer, OfferRepo, snakeCaseKeys } from "@talab/core"
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

/** An offer as stored: the entity under its column names. */
const OfferRow = snakeCaseKeys(Offer.fields)

export const SqlOfferRepo = Layer.effect(
  OfferRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

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
    const setStatus = (status: Offer["status"], ids: ReadonlyArray<string>) =>
      sql`UPDATE offers SET status = ${status} WHERE id IN ${sql.in(ids)}`

    return OfferRepo.of({
      insertUnlessPending: (offer) =>
        insertUnlessPending(offer).pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
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
      updateStatus: (offers) =>
        Effect.forEach(
          Object.entries(Arr.groupBy(offers, (offer) => offer.status)),
          ([status, group]) =>
            setStatus(
              status as Offer["status"],
              group.map((offer) => offer.id)
            ),
          { discard: true }
        ).pipe(Effect.orDie)
    })
  })
)
