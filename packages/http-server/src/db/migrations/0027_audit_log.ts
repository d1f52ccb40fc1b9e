import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/*
 * The admin API and its audit trail (docs/DECISIONS.md, "Admin API and audit trail").
 *
 * - audit_log: one row per admin action (through the API) and per operator command that changed data, written in
 *   the transaction of the change. Append-only for real: the triggers below refuse UPDATE, DELETE and TRUNCATE
 *   whoever tries, the application's own role (the table's owner) included, so neither a bug, the retention job
 *   nor an account deletion can rewrite it. No foreign keys: an entry outlives its actor and its target (a deleted
 *   account keeps its row anyway, but the log must not depend on that). The actor's name is the one they had when
 *   they acted.
 * - seller_profiles.rejection_reason: what the admin told a rejected applicant (at most 500 characters).
 * - The notification types gain `seller_profile_rejected` (rewritten from the current definition, as 0018 does).
 */
export default Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE TABLE audit_log (
      id uuid PRIMARY KEY,
      actor_type text NOT NULL CONSTRAINT audit_log_actor_type_known CHECK (actor_type IN ('admin', 'operator')),
      actor_id uuid,
      actor_name text,
      actor_host text,
      action text NOT NULL,
      target_type text,
      target_id uuid,
      changes jsonb NOT NULL DEFAULT '{}'::jsonb,
      request_id text,
      created_at timestamptz NOT NULL,
      CONSTRAINT audit_log_actor_shape CHECK (
        (actor_type = 'admin' AND actor_id IS NOT NULL AND actor_host IS NULL)
        OR (actor_type = 'operator' AND actor_id IS NULL AND actor_host IS NOT NULL)
      ),
      CONSTRAINT audit_log_target_shape CHECK ((target_type IS NULL) = (target_id IS NULL))
    );
    CREATE INDEX audit_log_newest ON audit_log (created_at DESC, id DESC);
    CREATE INDEX audit_log_by_actor ON audit_log (actor_id, created_at DESC, id DESC) WHERE actor_id IS NOT NULL;
    CREATE INDEX audit_log_by_target ON audit_log (target_id, created_at DESC, id DESC) WHERE target_id IS NOT NULL;
    CREATE INDEX audit_log_by_action ON audit_log (action, created_at DESC, id DESC);

    CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
    END
    $$;
    CREATE TRIGGER audit_log_no_update_or_delete BEFORE UPDATE OR DELETE ON audit_log
      FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
    CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
      FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

    ALTER TABLE seller_profiles ADD COLUMN rejection_reason text
      CONSTRAINT seller_profiles_rejection_reason_length CHECK (char_length(rejection_reason) <= 500);

    DO $$
    DECLARE definition text;
    BEGIN
      SELECT pg_get_constraintdef(c.oid) INTO definition FROM pg_constraint c
      WHERE c.conrelid = 'notifications'::regclass AND c.conname = 'notifications_type_known';
      ALTER TABLE notifications DROP CONSTRAINT notifications_type_known;
      EXECUTE 'ALTER TABLE notifications ADD CONSTRAINT notifications_type_known '
        || replace(definition, 'ARRAY[', 'ARRAY[''seller_profile_rejected''::text, ');
    END
    $$;
  `
)
