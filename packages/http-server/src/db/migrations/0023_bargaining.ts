import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * Bargaining on offers (docs/DECISIONS.md, "Bargaining").
 *
 * - offers.revision: 1 when made, plus one per revision by the seller (existing offers are at 1).
 * - offer_counters: the buyer's counters, each answering the revision it saw; the one on the table is the last
 *   (by `position`) of the offer's current revision, so a revision clears it without a write. Counted per offer
 *   for the limit.
 * - offer_events: an offer's history, in `position` order (a sequence: within one offer, every writer holds the
 *   offer's lock, so the order is the order of the moves). Existing offers get their `created` line, and accepted
 *   ones their `accepted` line at the deal's time; when an older offer was rejected or withdrawn was not recorded.
 * - messages.kind: `text`, or `counter` / `revision` for the messages those moves post.
 * - The notification types gain `offer_countered` and `offer_revised` (rewritten from the current definition,
 *   as 0018 does).
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    ALTER TABLE offers ADD COLUMN revision integer NOT NULL DEFAULT 1
      CONSTRAINT offers_revision_positive CHECK (revision >= 1);

    CREATE TABLE offer_counters (
      id uuid PRIMARY KEY,
      offer_id uuid NOT NULL REFERENCES offers (id),
      price numeric(12, 2) NOT NULL CONSTRAINT offer_counters_price_range CHECK (price > 0 AND price <= 1000000000),
      note text CONSTRAINT offer_counters_note_length CHECK (char_length(note) <= 500),
      revision integer NOT NULL,
      created_at timestamptz NOT NULL,
      position bigint GENERATED ALWAYS AS IDENTITY
    );
    CREATE INDEX offer_counters_by_offer ON offer_counters (offer_id, revision, position DESC);

    CREATE TABLE offer_events (
      position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      offer_id uuid NOT NULL REFERENCES offers (id),
      type text NOT NULL CONSTRAINT offer_events_type_known
        CHECK (type IN ('created', 'countered', 'revised', 'accepted', 'rejected', 'withdrawn')),
      price numeric(12, 2) NOT NULL,
      by text NOT NULL CONSTRAINT offer_events_by_known CHECK (by IN ('buyer', 'seller')),
      revision integer NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX offer_events_by_offer ON offer_events (offer_id, position);

    INSERT INTO offer_events (offer_id, type, price, by, revision, created_at)
    SELECT id, 'created', price, 'seller', 1, created_at FROM offers ORDER BY created_at, id;
    INSERT INTO offer_events (offer_id, type, price, by, revision, created_at)
    SELECT o.id, 'accepted', o.price, 'buyer', 1, d.created_at
    FROM offers o JOIN deals d ON d.offer_id = o.id WHERE o.status = 'accepted' ORDER BY d.created_at, o.id;

    ALTER TABLE messages ADD COLUMN kind text NOT NULL DEFAULT 'text'
      CONSTRAINT messages_kind_known CHECK (kind IN ('text', 'counter', 'revision'));

    DO $$
    DECLARE definition text;
    BEGIN
      SELECT pg_get_constraintdef(c.oid) INTO definition FROM pg_constraint c
      WHERE c.conrelid = 'notifications'::regclass AND c.conname = 'notifications_type_known';
      ALTER TABLE notifications DROP CONSTRAINT notifications_type_known;
      EXECUTE 'ALTER TABLE notifications ADD CONSTRAINT notifications_type_known '
        || replace(definition, 'ARRAY[', 'ARRAY[''offer_countered''::text, ''offer_revised''::text, ');
    END
    $$;
  `
)
