import { NodeContext } from "@effect/platform-node"
import { PgMigrator } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { DatabaseLayer, type DatabaseOptions } from "./Database.js"
import accounts from "./migrations/0001_accounts.js"
import marketplace from "./migrations/0002_marketplace.js"
import outbox from "./migrations/0003_outbox.js"
import notificationDelivery from "./migrations/0004_notification_delivery.js"
import buyRequestCounts from "./migrations/0005_buy_request_counts.js"
import adminGrants from "./migrations/0006_admin_grants.js"
import storedFiles from "./migrations/0008_stored_files.js"
import retention from "./migrations/0009_retention.js"
import messageSeq from "./migrations/0010_message_seq.js"
import sessionDevices from "./migrations/0011_session_devices.js"
import idempotencyKeys from "./migrations/0012_idempotency_keys.js"
import sellerAlerts from "./migrations/0013_seller_alerts.js"
import sellerTrust from "./migrations/0015_seller_trust.js"
import requestListPaging from "./migrations/0017_request_list_paging.js"
import offerAndRequestExpiry from "./migrations/0018_offer_and_request_expiry.js"
import stripedRequestCounts from "./migrations/0019_striped_request_counts.js"
import expiryRules from "./migrations/0020_expiry_rules.js"
import spamBounds from "./migrations/0021_spam_bounds.js"
import relativeAvatarUrls from "./migrations/0022_relative_avatar_urls.js"
import bargaining from "./migrations/0023_bargaining.js"
import deletedUsers from "./migrations/0024_deleted_users.js"
import requestSearch from "./migrations/0025_request_search.js"
import images from "./migrations/0026_images.js"
import auditLog from "./migrations/0027_audit_log.js"
import requestCountsPerStatement from "./migrations/0028_request_counts_per_statement.js"
import requestDetailFunction from "./migrations/0029_request_detail_function.js"
import requestRoomForUpdates from "./migrations/0030_request_room_for_updates.js"

/** Migrations by `<number>_<name>`; imported statically so tsx and bundlers see them. */
export const migrations = {
  "0001_accounts": accounts,
  "0002_marketplace": marketplace,
  "0003_outbox": outbox,
  "0004_notification_delivery": notificationDelivery,
  "0005_buy_request_counts": buyRequestCounts,
  "0006_admin_grants": adminGrants,
  "0008_stored_files": storedFiles,
  "0009_retention": retention,
  "0010_message_seq": messageSeq,
  "0011_session_devices": sessionDevices,
  "0012_idempotency_keys": idempotencyKeys,
  "0013_seller_alerts": sellerAlerts,
  "0015_seller_trust": sellerTrust,
  "0017_request_list_paging": requestListPaging,
  // Numbered after 0017, which landed first: the migrator only runs ids above the last one applied.
  "0018_offer_and_request_expiry": offerAndRequestExpiry,
  "0019_striped_request_counts": stripedRequestCounts,
  "0020_expiry_rules": expiryRules,
  "0021_spam_bounds": spamBounds,
  "0022_relative_avatar_urls": relativeAvatarUrls,
  "0023_bargaining": bargaining,
  "0024_deleted_users": deletedUsers,
  "0025_request_search": requestSearch,
  "0026_images": images,
  "0027_audit_log": auditLog,
  "0028_request_counts_per_statement": requestCountsPerStatement,
  "0029_request_detail_function": requestDetailFunction,
  "0030_request_room_for_updates": requestRoomForUpdates
}

/**
 * Brings the schema up to date when built; a migration already applied is skipped, so every start runs it.
 * The platform services only matter for schema dumps, which are off (no `schemaDirectory`).
 */
export const MigrationsLayer = PgMigrator.layer({ loader: PgMigrator.fromRecord(migrations) }).pipe(
  Layer.provide(NodeContext.layer)
)

/** Runs the migrations not yet applied and answers them as `[id, name]`; `talab migrate` prints them. */
export const runMigrations = PgMigrator.run({ loader: PgMigrator.fromRecord(migrations) }).pipe(
  Effect.provide(NodeContext.layer)
)

/** The database of `options` with its schema migrated, providing `SqlClient` and `PgClient`. */
export const MigratedDatabaseLayer = (options: DatabaseOptions) =>
  MigrationsLayer.pipe(Layer.provideMerge(DatabaseLayer(options)))
