import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * The expiry rules as SQL functions, so that every query applies them the way core's TypeScript does (a
 * request or offer past its time counts as expired before the expiry job writes it down) and one test
 * holds the two equal (test/db/expiry-rules.test.ts). To change a rule, change core and replace these
 * functions in a new migration; that test fails until both agree.
 *
 * - talab_request_lapsed: core's `expireRequest` applies (an active request at or past expires_at).
 * - talab_request_status: core's `effectiveRequest(...).status`.
 * - talab_offer_lapsed: core's `offerLapsed` (a pending offer at or past a valid_until it has).
 * - talab_offer_status: core's `effectiveOfferOn(...).status`, beside its request's stored status and expiry.
 *
 * Single-expression SQL functions, IMMUTABLE, not STRICT: the planner inlines them into the calling query,
 * so a WHERE written with them keeps the index conditions of the comparisons inside them (buy_requests_expiring
 * and offers_lapsing are partial indexes on exactly these predicates).
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE FUNCTION talab_request_lapsed(status text, expires_at timestamptz, at timestamptz) RETURNS boolean
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN status = 'active' AND expires_at <= at;

    CREATE FUNCTION talab_request_status(status text, expires_at timestamptz, at timestamptz) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN CASE WHEN talab_request_lapsed(status, expires_at, at) THEN 'expired' ELSE status END;

    CREATE FUNCTION talab_offer_lapsed(status text, valid_until timestamptz, at timestamptz) RETURNS boolean
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN status = 'pending' AND valid_until IS NOT NULL AND valid_until <= at;

    CREATE FUNCTION talab_offer_status(
      status text, valid_until timestamptz, request_status text, request_expires_at timestamptz, at timestamptz
    ) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN CASE
        WHEN talab_offer_lapsed(status, valid_until, at) THEN 'expired'
        WHEN status = 'pending' AND talab_request_status(request_status, request_expires_at, at) = 'expired'
          THEN 'rejected'
        ELSE status
      END;
  `
)
