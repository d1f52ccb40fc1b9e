import { join } from "node:path"
import { NodeContext } from "@effect/platform-node"
import { Ids } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as DatabaseFileStore from "../adapters/files/DatabaseFileStore.js"
import * as LocalFileStore from "../adapters/files/LocalFileStore.js"
import * as S3FileStore from "../adapters/files/S3FileStore.js"
import { ApnsPush, FcmPush, LogPush, PushOutbox } from "../adapters/push/index.js"
import * as MemoryRateLimiter from "../adapters/ratelimit/MemoryRateLimiter.js"
import * as RedisRateLimiter from "../adapters/ratelimit/RedisRateLimiter.js"
import { ConsoleSms, SmsOutbox, TwilioSms } from "../adapters/sms/index.js"
import { AppConfig, type AppSettings } from "../config/AppConfig.js"
import { DatabaseLayer, databaseOptionsFromUrl } from "../db/Database.js"
import { MigratedDatabaseLayer } from "../db/Migrations.js"
import { checkedSchemaStatus } from "../db/SchemaStatus.js"

/** SMS_PROVIDER's sender, writing to SMS_OUTBOX_FILE too when set. */
const smsLayer = (config: AppSettings) => {
  const sender =
    config.sms.provider === "twilio" && config.sms.twilio
      ? TwilioSms.layer({
          accountSid: config.sms.twilio.accountSid,
          authToken: Redacted.value(config.sms.twilio.authToken),
          from: config.sms.twilio.from
        })
      : ConsoleSms.layer({ showText: config.nodeEnv !== "production" })
  return config.sms.outboxFile ? SmsOutbox.layer(config.sms.outboxFile).pipe(Layer.provide(sender)) : sender
}

/** PUSH_PROVIDER's sender, writing to PUSH_OUTBOX_FILE too when set. */
const pushLayer = (config: AppSettings) => {
  const sender =
    config.push.provider === "fcm" && config.push.fcm
      ? Layer.unwrapEffect(
          Effect.map(
            FcmPush.parseServiceAccountJson(Redacted.value(config.push.fcm.serviceAccountJson)),
            (serviceAccount) => FcmPush.layer({ projectId: config.push.fcm!.projectId, serviceAccount })
          )
        )
      : config.push.provider === "apns" && config.push.apns
        ? ApnsPush.layer({
            keyId: config.push.apns.keyId,
            teamId: config.push.apns.teamId,
            privateKey: Redacted.value(config.push.apns.privateKey),
            bundleId: config.push.apns.bundleId
          })
        : LogPush.layer()
  return config.push.outboxFile ? PushOutbox.layer(config.push.outboxFile).pipe(Layer.provide(sender)) : sender
}

/** Rate-limit counters in this process, or in REDIS_URL's Redis (under `prefix`, the deployment's by default). */
export const rateLimiterLayer = (
  config: Pick<AppSettings, "redisUrl" | "redisPrefix" | "redisLimiterTimeoutMs">,
  prefix = `${config.redisPrefix}ratelimit:`
) =>
  config.redisUrl
    ? RedisRateLimiter.layer({ url: config.redisUrl, prefix, commandTimeoutMs: config.redisLimiterTimeoutMs })
    : MemoryRateLimiter.layer()

/** FILE_STORE: avatars on this instance's disk, in PostgreSQL, or in S3 (the last two shared by every instance). */
export const fileStoreLayer = (config: Pick<AppSettings, "fileStore" | "s3" | "dataDir">) =>
  config.fileStore === "database"
    ? DatabaseFileStore.layer
    : config.fileStore === "s3" && config.s3
      ? S3FileStore.layer({ bucket: config.s3.bucket, region: config.s3.region, endpoint: config.s3.endpoint })
      : LocalFileStore.layer({ directory: join(config.dataDir, "uploads", "avatars") }).pipe(
          Layer.provide(NodeContext.layer)
        )

/** The production adapters of every port but the database, chosen by the configuration. */
export const PortAdaptersFromConfig = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Layer.mergeAll(smsLayer(config), pushLayer(config), rateLimiterLayer(config), fileStoreLayer(config), Ids.Random)
  )
)

/**
 * The database DATABASE_URL names, migrated unless MIGRATE_ON_START=false: migrations then run as `talab migrate`,
 * and until they have, the server is not ready and calls are answered 503 (`SchemaStatus`).
 */
export const DatabaseFromConfig = Layer.unwrapEffect(
  Effect.flatMap(AppConfig, (config) =>
    Effect.map(databaseOptionsFromUrl(config.databaseUrl, config.dataDir), (options) =>
      config.migrateOnStart
        ? MigratedDatabaseLayer(options)
        : checkedSchemaStatus().pipe(Layer.provideMerge(DatabaseLayer(options)))
    )
  )
)
