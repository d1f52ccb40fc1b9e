import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE TABLE users (
      id uuid PRIMARY KEY,
      phone_number text NOT NULL CONSTRAINT users_phone_number_key UNIQUE
        CONSTRAINT users_phone_number_e164 CHECK (phone_number ~ '^\\+[1-9][0-9]{6,14}$'),
      name text CONSTRAINT users_name_length CHECK (char_length(name) BETWEEN 1 AND 100),
      avatar_url text,
      language text NOT NULL DEFAULT 'ar' CONSTRAINT users_language_known CHECK (language IN ('ar', 'en')),
      is_admin boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE sessions (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz
    );
    CREATE INDEX sessions_user_id ON sessions (user_id);

    CREATE TABLE otp_challenges (
      phone_number text PRIMARY KEY,
      code_hash text NOT NULL,
      expires_at timestamptz NOT NULL,
      attempts integer NOT NULL DEFAULT 0 CONSTRAINT otp_challenges_attempts_range CHECK (attempts BETWEEN 0 AND 3),
      consumed_at timestamptz
    );

    CREATE TABLE device_tokens (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      platform text NOT NULL CONSTRAINT device_tokens_platform_known CHECK (platform IN ('ios', 'android', 'web')),
      push_token text NOT NULL CONSTRAINT device_tokens_push_token_key UNIQUE
        CONSTRAINT device_tokens_push_token_length CHECK (char_length(push_token) BETWEEN 1 AND 4096),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX device_tokens_user_id ON device_tokens (user_id);
  `
)
