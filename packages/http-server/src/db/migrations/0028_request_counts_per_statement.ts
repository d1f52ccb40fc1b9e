import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * Request counts that requests inserted together cannot deadlock on. Migration 0019 dealt a stripe to every row
 * a trigger counted, so a statement inserting many requests (requests posted together are one statement) took
 * one count row after another in the order of its rows, on stripes interleaved with those of other such
 * statements: two of them meeting the same keys in other orders locked each other, and PostgreSQL broke the
 * cycle only after its deadlock_timeout (a second), failing one of them.
 *
 * - The sequence now deals a stripe once per transaction, kept in a setting local to it: consecutive
 *   transactions still write different rows of a key, and one transaction holds one row of a key at most.
 * - Inserted requests are counted once per statement, from its transition table, one row per key, in key order:
 *   two inserting statements take the rows they share in the same order, so the later one waits, never cycles.
 * - A move or a delete is still counted per row, its two keys in key order.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE FUNCTION buy_request_counts_stripe() RETURNS smallint LANGUAGE plpgsql AS $$
    DECLARE
      dealt text := current_setting('talab.request_count_stripe', true);
    BEGIN
      IF dealt IS NULL OR dealt = '' THEN
        dealt := nextval('buy_request_counts_stripes')::text;
        PERFORM set_config('talab.request_count_stripe', dealt, true);
      END IF;
      RETURN dealt::smallint;
    END
    $$;

    CREATE OR REPLACE FUNCTION buy_request_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO buy_request_counts AS c (status, category, location_city_key, stripe, n)
      SELECT change.status, change.category, change.location_city_key, buy_request_counts_stripe(), change.n
      FROM (
        SELECT NEW.status, NEW.category, COALESCE(NEW.location_city, ''), 1 WHERE TG_OP IN ('INSERT', 'UPDATE')
        UNION ALL
        SELECT OLD.status, OLD.category, COALESCE(OLD.location_city, ''), -1 WHERE TG_OP IN ('UPDATE', 'DELETE')
      ) AS change (status, category, location_city_key, n)
      ORDER BY change.status, change.category, change.location_city_key
      ON CONFLICT (status, category, location_city_key, stripe) DO UPDATE SET n = c.n + EXCLUDED.n;
      RETURN NULL;
    END
    $$;

    CREATE FUNCTION buy_request_counts_track_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO buy_request_counts AS c (status, category, location_city_key, stripe, n)
      SELECT status, category, COALESCE(location_city, ''), buy_request_counts_stripe(), count(*)
      FROM inserted
      GROUP BY 1, 2, 3
      ORDER BY 1, 2, 3
      ON CONFLICT (status, category, location_city_key, stripe) DO UPDATE SET n = c.n + EXCLUDED.n;
      RETURN NULL;
    END
    $$;

    DROP TRIGGER buy_request_counts_on_insert ON buy_requests;
    CREATE TRIGGER buy_request_counts_on_insert AFTER INSERT ON buy_requests
      REFERENCING NEW TABLE AS inserted
      FOR EACH STATEMENT EXECUTE FUNCTION buy_request_counts_track_inserted();
  `
)
