import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * Uploaded photos (docs/DECISIONS.md, "Photos"): one row per image, its two files in the FILE_STORE under
 * server-made keys. An image is attached at most once, to a request, an offer or a message (`holder_kind`,
 * `holder_id`, its place in `position`); the holders are of three tables, so no foreign key names them, and what
 * deletes a holder deletes its images (the sweep, account deletion). Unattached images are found by owner for
 * the per-user cap and by age for the 24-hour sweep. A message of photos alone has the text "": core refuses
 * one with neither text nor photo before it is stored.
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE TABLE images (
      id uuid PRIMARY KEY,
      owner_id uuid NOT NULL REFERENCES users(id),
      file_key text NOT NULL,
      thumbnail_key text NOT NULL,
      content_type text NOT NULL,
      width integer NOT NULL CHECK (width > 0),
      height integer NOT NULL CHECK (height > 0),
      holder_kind text CHECK (holder_kind IN ('request', 'offer', 'message')),
      holder_id uuid,
      position integer,
      created_at timestamptz NOT NULL,
      CHECK ((holder_kind IS NULL) = (holder_id IS NULL) AND (holder_kind IS NULL) = (position IS NULL))
    );
    CREATE INDEX images_unattached_by_owner ON images (owner_id) WHERE holder_kind IS NULL;
    CREATE INDEX images_unattached_by_age ON images (created_at) WHERE holder_kind IS NULL;
    CREATE INDEX images_by_holder ON images (holder_id, position) WHERE holder_id IS NOT NULL;
    CREATE INDEX images_by_owner ON images (owner_id);
    ALTER TABLE messages DROP CONSTRAINT messages_text_length,
      ADD CONSTRAINT messages_text_length CHECK (char_length(message_text) BETWEEN 0 AND 4000);
  `
)
