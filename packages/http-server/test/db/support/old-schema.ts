import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { aPhoneNumber } from "./fixtures.js"

/*
 * Rows written in plain SQL with the columns of migration 0002 only, for migration tests that store data on a
 * schema migrated part of the way. Today's repositories write today's columns (a later migration's, such as
 * expires_at), so they cannot seed an older schema.
 */

/** A user, by id. */
export const oldSchemaUser = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const id = randomUUID()
  yield* sql`INSERT INTO users (id, phone_number) VALUES (${id}, ${aPhoneNumber()})`
  return id
})

export interface OldSchemaRequest {
  readonly category?: "phone" | "accessory"
  readonly locationCity?: string | null
  readonly closedAt?: Date
}

/** A buy request of `buyerId` (active, or closed at `closedAt`), by id. */
export const oldSchemaRequest = (buyerId: string, request: OldSchemaRequest = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const id = randomUUID()
    const closedAt = request.closedAt ?? null
    yield* sql`
      INSERT INTO buy_requests (id, buyer_id, category, budget_min, budget_max, location_district, location_city,
                                status, closed_at)
      VALUES (${id}, ${buyerId}, ${request.category ?? "phone"}, 1500.5, 2999.99, 'Olaya',
              ${request.locationCity === undefined ? "Riyadh" : request.locationCity},
              ${closedAt === null ? "active" : "closed"}, ${closedAt})`
    return id
  })

/** A request of a new buyer with an offer of a new seller and its conversation. */
export const oldSchemaConversation = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const buyerId = yield* oldSchemaUser
  const sellerId = yield* oldSchemaUser
  const requestId = yield* oldSchemaRequest(buyerId)
  const offerId = randomUUID()
  yield* sql`INSERT INTO offers (id, request_id, seller_id, price, availability)
             VALUES (${offerId}, ${requestId}, ${sellerId}, 2500, 'Today')`
  const conversationId = randomUUID()
  yield* sql`INSERT INTO conversations (id, offer_id, buyer_id, seller_id)
             VALUES (${conversationId}, ${offerId}, ${buyerId}, ${sellerId})`
  return { buyerId, sellerId, requestId, offerId, conversationId }
})
