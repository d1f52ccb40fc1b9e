import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * The seller's trust figures (docs/DECISIONS.md, "Seller trust score"), kept in the writing transaction so a
 * read is one row by primary key, never a scan of deals or messages.
 *
 * seller_trust_stats holds one row per seller user (created by the first write that concerns them): the deal
 * counters and the two medians. Triggers keep it, like buy_request_counts (0005), so no code path can forget it
 * and a rollback takes the change back with it:
 *   - a deal inserted (an offer accepted) counts in deals_accepted; a deal whose status moves to completed or
 *     cancelled counts there (deals leave `accepted` only, once: DEAL_NOT_ACTIVE);
 *   - an offer on a request the seller was alerted to (a request_matches row, migration 0013) is the seller's
 *     first offer there unless one is already recorded (seller_first_offer_times): minutes from matched_at to the
 *     offer, and the seller's median is recomputed from their own rows (seller_first_offer_times_by_seller).
 *     An offer written before the match row (the matching job runs just after the request) is no sample: the
 *     seller was not answering the alert;
 *   - a message: the buyer's first message of a conversation starts its reply clock (seller_reply_times);
 *     the seller's first message after it stops the clock, and the seller's median is recomputed from their
 *     own stopped clocks (seller_reply_times_by_seller).
 * rating_avg and rating_count are the seller profile's own, kept by the ratings transaction.
 *
 * Medians under concurrency: the trigger locks the seller's stats row before it reads the samples, in its own
 * statement, so under READ COMMITTED that read sees every sample committed by a racing writer that held the
 * lock before it (none is left out of the stored median). The stats row is the last lock a writing
 * transaction takes on these paths (after the deal row, the conversation row), and nothing waits for another
 * row while holding it, so it adds no deadlock.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE TABLE seller_trust_stats (
      seller_user_id uuid PRIMARY KEY REFERENCES users (id),
      deals_accepted integer NOT NULL DEFAULT 0 CONSTRAINT seller_trust_stats_accepted_positive CHECK (deals_accepted >= 0),
      deals_completed integer NOT NULL DEFAULT 0 CONSTRAINT seller_trust_stats_completed_positive CHECK (deals_completed >= 0),
      deals_cancelled integer NOT NULL DEFAULT 0 CONSTRAINT seller_trust_stats_cancelled_positive CHECK (deals_cancelled >= 0),
      median_reply_minutes numeric(12, 1),
      median_first_offer_minutes numeric(12, 1)
    );

    CREATE TABLE seller_reply_times (
      conversation_id uuid PRIMARY KEY REFERENCES conversations (id),
      seller_user_id uuid NOT NULL REFERENCES users (id),
      asked_at timestamptz NOT NULL,
      replied_at timestamptz
    );
    CREATE INDEX seller_reply_times_by_seller ON seller_reply_times (seller_user_id) WHERE replied_at IS NOT NULL;

    CREATE TABLE seller_first_offer_times (
      request_id uuid NOT NULL REFERENCES buy_requests (id) ON DELETE CASCADE,
      seller_user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      matched_at timestamptz NOT NULL,
      offered_at timestamptz NOT NULL,
      PRIMARY KEY (request_id, seller_user_id)
    );
    CREATE INDEX seller_first_offer_times_by_seller ON seller_first_offer_times (seller_user_id);

    CREATE FUNCTION seller_trust_lock(seller uuid) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO seller_trust_stats (seller_user_id) VALUES (seller) ON CONFLICT (seller_user_id) DO NOTHING;
      PERFORM 1 FROM seller_trust_stats WHERE seller_user_id = seller FOR UPDATE;
    END
    $$;

    CREATE FUNCTION seller_trust_on_deal() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM seller_trust_lock(NEW.seller_id);
      UPDATE seller_trust_stats SET
        deals_accepted = deals_accepted + CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE 0 END,
        deals_completed = deals_completed + CASE WHEN NEW.status = 'completed' THEN 1 ELSE 0 END,
        deals_cancelled = deals_cancelled + CASE WHEN NEW.status = 'cancelled' THEN 1 ELSE 0 END
      WHERE seller_user_id = NEW.seller_id;
      RETURN NULL;
    END
    $$;
    CREATE TRIGGER seller_trust_on_deal_insert AFTER INSERT ON deals
      FOR EACH ROW EXECUTE FUNCTION seller_trust_on_deal();
    CREATE TRIGGER seller_trust_on_deal_move AFTER UPDATE OF status ON deals
      FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
      EXECUTE FUNCTION seller_trust_on_deal();

    CREATE FUNCTION seller_trust_on_offer() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO seller_first_offer_times (request_id, seller_user_id, matched_at, offered_at)
      SELECT m.request_id, m.seller_user_id, m.matched_at, NEW.created_at
      FROM request_matches m
      WHERE m.request_id = NEW.request_id AND m.seller_user_id = NEW.seller_id AND m.matched_at <= NEW.created_at
      ON CONFLICT (request_id, seller_user_id) DO NOTHING;
      IF FOUND THEN
        PERFORM seller_trust_lock(NEW.seller_id);
        UPDATE seller_trust_stats SET median_first_offer_minutes = (
          SELECT round((percentile_cont(0.5) WITHIN GROUP (
            ORDER BY extract(epoch FROM offered_at - matched_at) / 60))::numeric, 1)
          FROM seller_first_offer_times
          WHERE seller_user_id = NEW.seller_id
        )
        WHERE seller_user_id = NEW.seller_id;
      END IF;
      RETURN NULL;
    END
    $$;
    CREATE TRIGGER seller_trust_on_offer_insert AFTER INSERT ON offers
      FOR EACH ROW EXECUTE FUNCTION seller_trust_on_offer();

    CREATE FUNCTION seller_trust_on_message() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      party record;
    BEGIN
      SELECT buyer_id, seller_id INTO party FROM conversations WHERE id = NEW.conversation_id;
      IF NEW.sender_id = party.buyer_id THEN
        INSERT INTO seller_reply_times (conversation_id, seller_user_id, asked_at)
        VALUES (NEW.conversation_id, party.seller_id, NEW.created_at)
        ON CONFLICT (conversation_id) DO NOTHING;
      ELSIF NEW.sender_id = party.seller_id THEN
        UPDATE seller_reply_times SET replied_at = NEW.created_at
        WHERE conversation_id = NEW.conversation_id AND replied_at IS NULL;
        IF FOUND THEN
          PERFORM seller_trust_lock(party.seller_id);
          UPDATE seller_trust_stats SET median_reply_minutes = (
            SELECT round((percentile_cont(0.5) WITHIN GROUP (
              ORDER BY greatest(extract(epoch FROM replied_at - asked_at), 0) / 60))::numeric, 1)
            FROM seller_reply_times
            WHERE seller_user_id = party.seller_id AND replied_at IS NOT NULL
          )
          WHERE seller_user_id = party.seller_id;
        END IF;
      END IF;
      RETURN NULL;
    END
    $$;
    CREATE TRIGGER seller_trust_on_message_insert AFTER INSERT ON messages
      FOR EACH ROW EXECUTE FUNCTION seller_trust_on_message();

    -- What happened before this migration, counted once.
    INSERT INTO seller_reply_times (conversation_id, seller_user_id, asked_at, replied_at)
    SELECT c.id, c.seller_id, asked.created_at, (
      SELECT m.created_at FROM messages m
      WHERE m.conversation_id = c.id AND m.sender_id = c.seller_id AND m.seq > asked.seq
      ORDER BY m.seq LIMIT 1
    )
    FROM conversations c
    JOIN LATERAL (
      SELECT m.created_at, m.seq FROM messages m
      WHERE m.conversation_id = c.id AND m.sender_id = c.buyer_id
      ORDER BY m.seq LIMIT 1
    ) asked ON true;

    INSERT INTO seller_first_offer_times (request_id, seller_user_id, matched_at, offered_at)
    SELECT m.request_id, m.seller_user_id, m.matched_at, min(o.created_at)
    FROM request_matches m
    JOIN offers o ON o.request_id = m.request_id AND o.seller_id = m.seller_user_id AND o.created_at >= m.matched_at
    GROUP BY m.request_id, m.seller_user_id, m.matched_at;

    INSERT INTO seller_trust_stats (seller_user_id, deals_accepted, deals_completed, deals_cancelled)
    SELECT seller_id, count(*), count(*) FILTER (WHERE status = 'completed'), count(*) FILTER (WHERE status = 'cancelled')
    FROM deals
    GROUP BY seller_id;

    INSERT INTO seller_trust_stats AS s (seller_user_id, median_reply_minutes)
    SELECT seller_user_id, round((percentile_cont(0.5) WITHIN GROUP (
      ORDER BY greatest(extract(epoch FROM replied_at - asked_at), 0) / 60))::numeric, 1)
    FROM seller_reply_times
    WHERE replied_at IS NOT NULL
    GROUP BY seller_user_id
    ON CONFLICT (seller_user_id) DO UPDATE SET median_reply_minutes = EXCLUDED.median_reply_minutes;

    INSERT INTO seller_trust_stats AS s (seller_user_id, median_first_offer_minutes)
    SELECT seller_user_id, round((percentile_cont(0.5) WITHIN GROUP (
      ORDER BY extract(epoch FROM offered_at - matched_at) / 60))::numeric, 1)
    FROM seller_first_offer_times
    GROUP BY seller_user_id
    ON CONFLICT (seller_user_id) DO UPDATE SET median_first_offer_minutes = EXCLUDED.median_first_offer_minutes;
  `
)
