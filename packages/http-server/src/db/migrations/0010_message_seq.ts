import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * Every message gets `seq`: 1, 2, 3, … within its conversation, with no gaps, so a client can resume a
 * conversation from the last seq it saw. Messages stored before are numbered in the order history shows them
 * (created_at, then id). New ones take the next number while their conversation row is locked (SqlMessageRepo);
 * the unique index turns any write that skipped the lock into an error instead of a duplicate.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    ALTER TABLE messages ADD COLUMN seq integer;
    UPDATE messages m SET seq = numbered.seq
    FROM (
      SELECT id, row_number() OVER (PARTITION BY conversation_id ORDER BY created_at, id)::integer AS seq
      FROM messages
    ) numbered
    WHERE m.id = numbered.id;
    ALTER TABLE messages
      ALTER COLUMN seq SET NOT NULL,
      ADD CONSTRAINT messages_seq_positive CHECK (seq >= 1);
    CREATE UNIQUE INDEX messages_by_conversation_seq ON messages (conversation_id, seq);
  `
)
