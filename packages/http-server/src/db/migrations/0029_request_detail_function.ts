import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * A request's detail read as one function, so PostgreSQL plans it once per connection instead of on every read.
 * The statement (the row, its effective status and offer count, its photos, its buyer and the seller of its
 * accepted offer) cost more to parse and plan than to run: 0.44–0.53 ms a read sent as text, 0.27–0.31 ms through
 * this function on the same machine, where the bare `SELECT r.*` of the bench's floor costs 0.28–0.35 ms. PL/pgSQL
 * keeps the plan of its query for the session, which holds through a pooler in transaction mode as well (the plan
 * belongs to the server connection, not to a client's named statement). The request comes back as its whole row,
 * so the columns the API shows are chosen by the caller and a column added to buy_requests needs no change here.
 * What it computes is what the lists compute (`effectiveColumns` in requests/Queries.ts: the status and offer
 * count through migration 0020's rules) and the photos as images/Queries.ts builds a request's first one
 * (`ShownImage`); a change to either is a new version of this function too.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE FUNCTION talab_request_detail(request_id uuid, at timestamptz)
    RETURNS TABLE (
      request buy_requests,
      status text,
      offer_count int,
      photos json,
      buyer_name text,
      buyer_deleted boolean,
      dealt_seller_id uuid
    )
    LANGUAGE plpgsql STABLE AS $$
    BEGIN
      RETURN QUERY
      SELECT r,
        talab_request_status(r.status, r.expires_at, at),
        r.offer_count - (
          SELECT count(*) FROM offers o
          WHERE o.request_id = r.id AND talab_offer_lapsed(o.status, o.valid_until, at)
        )::int,
        (SELECT COALESCE(json_agg(json_build_object('id', i.id, 'width', i.width, 'height', i.height)
                                  ORDER BY i.position), '[]'::json)
         FROM images i WHERE i.holder_id = r.id AND i.holder_kind = 'request'),
        u.name,
        u.deleted,
        (SELECT o.seller_id FROM offers o WHERE o.request_id = r.id AND o.status = 'accepted' LIMIT 1)
      FROM buy_requests r
      JOIN users u ON u.id = r.buyer_id
      WHERE r.id = talab_request_detail.request_id;
    END
    $$
  `
)
