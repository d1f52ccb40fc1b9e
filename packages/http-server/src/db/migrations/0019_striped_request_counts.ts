import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * Striped request counts, so creates of one key run side by side. Migration 0005 kept one row per (status, category,
 * city): every create of a key locked that row until its transaction ended, so creates of one category and city, the
 * busiest of a market, ran one at a time, each waiting out the other's outbox insert and commit (a bench of 50 clients
 * posting phones in one city measured it).
 *
 * Each key now has up to 16 rows (stripes), and a change writes the stripe a sequence deals it: consecutive changes
 * take different stripes, so concurrent creates of one key no longer wait for each other (sixteen at once
 * before two share a row). A key's count is the sum of its stripes; a stripe may go negative, since a close
 * need not decrement the stripe its create incremented. A move still locks its two rows in key order (the
 * stripe is the last column of the key), so two moves cannot deadlock each other.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    ALTER TABLE buy_request_counts ADD COLUMN stripe smallint NOT NULL DEFAULT 0;
    ALTER TABLE buy_request_counts DROP CONSTRAINT buy_request_counts_key;
    ALTER TABLE buy_request_counts
      ADD CONSTRAINT buy_request_counts_key PRIMARY KEY (status, category, location_city_key, stripe);
    CREATE SEQUENCE buy_request_counts_stripes CYCLE MINVALUE 0 MAXVALUE 15 START 0;

    CREATE OR REPLACE FUNCTION buy_request_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      dealt smallint := nextval('buy_request_counts_stripes');
    BEGIN
      INSERT INTO buy_request_counts AS c (status, category, location_city_key, stripe, n)
      SELECT change.status, change.category, change.location_city_key, dealt, change.n
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
  `
)
