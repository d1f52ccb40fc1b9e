import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * Exact totals of GET /requests without counting: `count(*) WHERE status = 'active'` visits most of the
 * table, whatever the index. buy_request_counts holds how many requests there are per (status, category,
 * city), '' standing for no city (a real city is never empty: buy_requests_location_city_length).
 *
 * Triggers on buy_requests keep it, in the transaction of the change, so no code path can forget it and a
 * rollback takes the change back with it. An update fires only when the key of the row moves (a close, an
 * accept); updates that only count offers, which also write `status` unchanged, cost nothing but the WHEN.
 *
 * Locks: a key's row is locked by the change until its transaction ends, so creates of one category and city
 * wait for each other's commit (the rest of a create is one outbox insert). It is taken inside the write of
 * the request, after every other lock of the marketplace order (seller profile, request row, its offers), and
 * nothing waits for a request or offer row while holding it. A move locks its two keys in key order,
 * whichever way it goes, so two moves cannot deadlock each other.
 *
 * CREATE TRIGGER waits for the writers of buy_requests and keeps new ones out until this migration commits,
 * so the backfill below counts exactly the rows the triggers will not see.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE TABLE buy_request_counts (
      status text NOT NULL,
      category text NOT NULL,
      location_city_key text NOT NULL,
      n integer NOT NULL,
      CONSTRAINT buy_request_counts_key PRIMARY KEY (status, category, location_city_key)
    );

    CREATE FUNCTION buy_request_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO buy_request_counts AS c (status, category, location_city_key, n)
      SELECT change.status, change.category, change.location_city_key, change.n
      FROM (
        SELECT NEW.status, NEW.category, COALESCE(NEW.location_city, ''), 1 WHERE TG_OP IN ('INSERT', 'UPDATE')
        UNION ALL
        SELECT OLD.status, OLD.category, COALESCE(OLD.location_city, ''), -1 WHERE TG_OP IN ('UPDATE', 'DELETE')
      ) AS change (status, category, location_city_key, n)
      ORDER BY change.status, change.category, change.location_city_key
      ON CONFLICT (status, category, location_city_key) DO UPDATE SET n = c.n + EXCLUDED.n;
      RETURN NULL;
    END
    $$;

    CREATE TRIGGER buy_request_counts_on_insert AFTER INSERT ON buy_requests
      FOR EACH ROW EXECUTE FUNCTION buy_request_counts_track();
    CREATE TRIGGER buy_request_counts_on_move AFTER UPDATE OF status, category, location_city ON buy_requests
      FOR EACH ROW
      WHEN ((OLD.status, OLD.category, COALESCE(OLD.location_city, ''))
            IS DISTINCT FROM (NEW.status, NEW.category, COALESCE(NEW.location_city, '')))
      EXECUTE FUNCTION buy_request_counts_track();
    CREATE TRIGGER buy_request_counts_on_delete AFTER DELETE ON buy_requests
      FOR EACH ROW EXECUTE FUNCTION buy_request_counts_track();

    CREATE FUNCTION buy_request_counts_clear() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM buy_request_counts;
      RETURN NULL;
    END
    $$;
    CREATE TRIGGER buy_request_counts_on_truncate AFTER TRUNCATE ON buy_requests
      FOR EACH STATEMENT EXECUTE FUNCTION buy_request_counts_clear();

    INSERT INTO buy_request_counts (status, category, location_city_key, n)
    SELECT status, category, COALESCE(location_city, ''), count(*)
    FROM buy_requests
    GROUP BY 1, 2, 3;
  `
)
