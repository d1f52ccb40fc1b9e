import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * Seller alerts (docs/DECISIONS.md, "Seller alerts for matching requests").
 *
 * - seller_alert_rules: up to 20 per seller (counted by the service under the seller's profile lock). A request
 *   matches a rule when its category is in `categories`, its city key in `city_keys` (the cities trimmed and
 *   lowercased) and its budget range meets [price_min, price_max]. seller_alert_rules_matching is a GIN index
 *   on both arrays, so the matching asks the index for `city_keys @> {city} AND categories @> {category}`
 *   instead of reading every rule.
 * - seller_alert_settings: a seller's quiet hours (local times in an IANA zone); no row, no quiet hours.
 * - request_matches: one row per (request, seller) alerted, so a seller is alerted once per request whatever
 *   number of rules match or instances run the matching. push_held_until is set when the match fell in the
 *   seller's quiet hours: the push waits for that instant and goes out in one summary (push_queued_at).
 *   Other features read it (trust scores: minutes from match to first offer), so its first four columns and
 *   key are fixed.
 * - The matching runs from the RequestCreated event of the outbox (written with the request). Events written
 *   before this migration are marked processed: alerts are about requests created from now on.
 * - The notification types gain `request_match` and `request_match_summary`; the type check is rewritten
 *   from its current definition, so types other migrations add to it stay allowed.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE TABLE seller_alert_rules (
      id uuid PRIMARY KEY,
      seller_user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      categories text[] NOT NULL CONSTRAINT seller_alert_rules_categories_known
        CHECK (cardinality(categories) BETWEEN 1 AND 2 AND categories <@ ARRAY['phone', 'accessory']::text[]),
      cities text[] NOT NULL CONSTRAINT seller_alert_rules_cities_count CHECK (cardinality(cities) BETWEEN 1 AND 20),
      city_keys text[] NOT NULL CONSTRAINT seller_alert_rules_city_keys_count CHECK (cardinality(city_keys) BETWEEN 1 AND 20),
      price_min numeric(12, 2) CONSTRAINT seller_alert_rules_price_min_range CHECK (price_min > 0 AND price_min <= 1000000000),
      price_max numeric(12, 2) CONSTRAINT seller_alert_rules_price_max_range CHECK (price_max > 0 AND price_max <= 1000000000),
      created_at timestamptz NOT NULL,
      CONSTRAINT seller_alert_rules_price_order CHECK (price_max >= price_min)
    );
    CREATE INDEX seller_alert_rules_by_seller ON seller_alert_rules (seller_user_id, created_at DESC, id DESC);
    CREATE INDEX seller_alert_rules_matching ON seller_alert_rules USING gin (city_keys, categories);

    CREATE TABLE seller_alert_settings (
      seller_user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      quiet_from time NOT NULL,
      quiet_to time NOT NULL,
      time_zone text NOT NULL,
      updated_at timestamptz NOT NULL,
      CONSTRAINT seller_alert_settings_quiet_not_empty CHECK (quiet_from <> quiet_to)
    );

    CREATE TABLE request_matches (
      request_id uuid NOT NULL REFERENCES buy_requests (id) ON DELETE CASCADE,
      seller_user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      matched_at timestamptz NOT NULL,
      rule_id uuid,
      push_held_until timestamptz,
      push_queued_at timestamptz,
      PRIMARY KEY (request_id, seller_user_id)
    );
    CREATE INDEX request_matches_by_seller ON request_matches (seller_user_id, matched_at);
    CREATE INDEX request_matches_held ON request_matches (push_held_until) WHERE push_queued_at IS NULL;

    CREATE INDEX outbox_events_requests_unmatched ON outbox_events (created_at, id)
      WHERE processed_at IS NULL AND type = 'RequestCreated';
    UPDATE outbox_events SET processed_at = now() WHERE processed_at IS NULL AND type = 'RequestCreated';

    DO $$
    DECLARE definition text;
    BEGIN
      SELECT pg_get_constraintdef(c.oid) INTO definition FROM pg_constraint c
      WHERE c.conrelid = 'notifications'::regclass AND c.conname = 'notifications_type_known';
      ALTER TABLE notifications DROP CONSTRAINT notifications_type_known;
      EXECUTE 'ALTER TABLE notifications ADD CONSTRAINT notifications_type_known '
        || replace(definition, 'ARRAY[', 'ARRAY[''request_match''::text, ''request_match_summary''::text, ');
    END
    $$;
  `
)
