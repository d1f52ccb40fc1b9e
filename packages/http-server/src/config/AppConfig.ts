import { availableParallelism } from "node:os"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { databaseOptionsFromUrl } from "../db/Database.js"
import { redisPrefixFor } from "./RedisPrefix.js"
import { readVariable as read, type VariableName } from "./Settings.js"

/*
 * The variables themselves (name, format, default, README line) are declared in Settings.ts; here is the shape
 * the server uses and the rules between variables. The first bad variable stops the start and is the one named,
 * so the order below decides which an operator hears of first; a variable only a rule needs (ALLOW_*, a
 * provider's account) is read only when that rule applies, so a stray value elsewhere stops nothing.
 */

/** A variable that must be set when another one says so (a provider's account, a store's bucket). */
const required = <K extends VariableName>(name: K, when: string) =>
  Effect.flatMap(read(name), (value) =>
    value === undefined
      ? Effect.fail(ConfigError.MissingData([name], `is required when ${when}`))
      : Effect.succeed(value)
  )

const invalid = (name: VariableName, message: string) => Effect.fail(ConfigError.InvalidData([name], message))

/*
 * One decoding per core, and never all of libuv's thread pool, where sharp runs: file reads and writes, DNS
 * and crypto share it. Up to 16 uploads (5 MiB each at most) wait.
 */
const avatarDecodingFor = (threadPoolSize: number) => ({
  concurrency: Math.max(1, Math.min(availableParallelism(), threadPoolSize - 1)),
  queue: 16
})

const readTelemetry = (port: number) =>
  Effect.gen(function* () {
    const disabled = yield* read("OTEL_SDK_DISABLED")
    const endpoint = yield* read("OTEL_EXPORTER_OTLP_ENDPOINT")
    const protocol = yield* read("OTEL_EXPORTER_OTLP_PROTOCOL")
    if (endpoint !== undefined && protocol !== undefined && protocol !== "http/json") {
      return yield* invalid("OTEL_EXPORTER_OTLP_PROTOCOL", "must be http/json (the only protocol exported)")
    }
    const metricsPort = yield* read("METRICS_PORT")
    if (metricsPort !== undefined && metricsPort === port)
      return yield* invalid("METRICS_PORT", "must differ from PORT")
    return {
      /** OTLP/HTTP base URL: spans and metrics are exported there when set. */
      otlpEndpoint: disabled ? undefined : endpoint,
      /** `service.name` of every span and metric. */
      serviceName: yield* read("OTEL_SERVICE_NAME"),
      /** Port of the Prometheus `GET /metrics` listener, apart from the public port. */
      metricsPort
    } as const
  })

const readSettings = Effect.gen(function* () {
  const port = yield* read("PORT")
  const nodeEnv = yield* read("NODE_ENV")
  const jwtSecret = yield* read("JWT_SECRET")
  if (nodeEnv === "production" && jwtSecret === undefined) {
    return yield* Effect.fail(ConfigError.MissingData(["JWT_SECRET"], "is required when NODE_ENV=production"))
  }
  const smsProvider = yield* read("SMS_PROVIDER")
  const pushProvider = yield* read("PUSH_PROVIDER")
  // The console and log providers write codes and push tokens into the log: fine on a laptop, a leak in
  // production unless the operator says so (a demo or a staging server without an SMS account).
  if (nodeEnv === "production" && (smsProvider === "console" || pushProvider === "log")) {
    if (!(yield* read("ALLOW_CONSOLE_PROVIDERS"))) {
      const [variable, value] =
        smsProvider === "console" ? (["SMS_PROVIDER", "console"] as const) : (["PUSH_PROVIDER", "log"] as const)
      return yield* invalid(
        variable,
        `is ${value} (messages written to the log) under NODE_ENV=production; choose a real provider or set ALLOW_CONSOLE_PROVIDERS=true`
      )
    }
  }
  const twilio =
    smsProvider === "twilio"
      ? ({
          accountSid: yield* required("TWILIO_ACCOUNT_SID", "SMS_PROVIDER=twilio"),
          authToken: yield* required("TWILIO_AUTH_TOKEN", "SMS_PROVIDER=twilio"),
          from: yield* required("TWILIO_FROM", "SMS_PROVIDER=twilio")
        } as const)
      : undefined
  const fcm =
    pushProvider === "fcm"
      ? ({
          projectId: yield* required("FCM_PROJECT_ID", "PUSH_PROVIDER=fcm"),
          serviceAccountJson: yield* required("FCM_SERVICE_ACCOUNT_JSON", "PUSH_PROVIDER=fcm")
        } as const)
      : undefined
  const apns =
    pushProvider === "apns"
      ? ({
          keyId: yield* required("APNS_KEY_ID", "PUSH_PROVIDER=apns"),
          teamId: yield* required("APNS_TEAM_ID", "PUSH_PROVIDER=apns"),
          privateKey: yield* required("APNS_PRIVATE_KEY", "PUSH_PROVIDER=apns"),
          bundleId: yield* required("APNS_BUNDLE_ID", "PUSH_PROVIDER=apns")
        } as const)
      : undefined
  const databaseUrl = yield* read("DATABASE_URL")
  const redisUrl = yield* read("REDIS_URL")
  if (redisUrl !== undefined && jwtSecret === undefined) {
    return yield* Effect.fail(
      ConfigError.MissingData(
        ["JWT_SECRET"],
        "is required when REDIS_URL is set: every instance must sign with one key"
      )
    )
  }
  const onPostgres = databaseUrl !== undefined && /^postgres(ql)?:\/\//i.test(databaseUrl.trim())
  const fileStore = (yield* read("FILE_STORE")) ?? (onPostgres ? "database" : "local")
  if (fileStore === "database" && !onPostgres) {
    return yield* invalid("FILE_STORE", "database needs DATABASE_URL=postgres://…")
  }
  const s3 =
    fileStore === "s3"
      ? ({
          bucket: yield* required("S3_BUCKET", "FILE_STORE=s3"),
          region: (yield* read("S3_REGION")) ?? (yield* read("AWS_REGION")),
          endpoint: yield* read("S3_ENDPOINT")
        } as const)
      : undefined
  const invalidDatabaseUrl = Either.getLeft(databaseOptionsFromUrl(databaseUrl, "."))
  if (Option.isSome(invalidDatabaseUrl)) {
    return yield* invalid("DATABASE_URL", invalidDatabaseUrl.value.message.replace(/^DATABASE_URL /, ""))
  }
  const host = yield* read("HOST")
  const dataDir = yield* read("DATA_DIR")
  const publicUrl = (yield* read("PUBLIC_URL")) ?? `http://localhost:${port}`
  const adminPhoneNumbers = yield* read("ADMIN_PHONE_NUMBERS")
  const testPhoneNumbers = yield* read("TEST_PHONE_NUMBERS")
  // They sign in without an SMS: in production only when the operator says so.
  if (nodeEnv === "production" && testPhoneNumbers.length > 0 && !(yield* read("ALLOW_TEST_PHONE_NUMBERS"))) {
    return yield* invalid(
      "TEST_PHONE_NUMBERS",
      "is set under NODE_ENV=production (numbers that sign in without an SMS); remove it or set ALLOW_TEST_PHONE_NUMBERS=true"
    )
  }
  return {
    port,
    host,
    databaseUrl,
    dataDir,
    publicUrl,
    jwtSecret,
    nodeEnv,
    adminPhoneNumbers,
    /** Numbers that sign in with a fixed code and get no SMS, each until the end of its day. */
    testPhoneNumbers,
    sms: { provider: smsProvider, outboxFile: yield* read("SMS_OUTBOX_FILE"), ...(twilio ? { twilio } : {}) },
    /** What request-otp may spend on SMS: the countries it sends to, per rolling hour overall and per network. */
    smsBudget: {
      allowedCountries: yield* read("SMS_ALLOWED_COUNTRIES"),
      perHour: yield* read("SMS_MAX_PER_HOUR"),
      perNetworkPerHour: yield* read("SMS_MAX_PER_NETWORK_PER_HOUR")
    },
    push: {
      provider: pushProvider,
      outboxFile: yield* read("PUSH_OUTBOX_FILE"),
      ...(fcm ? { fcm } : {}),
      ...(apns ? { apns } : {})
    },
    redisUrl,
    /** Before every Redis key and channel: REDIS_PREFIX, or derived from the database (RedisPrefix.ts). */
    redisPrefix: redisPrefixFor({ redisPrefix: yield* read("REDIS_PREFIX"), databaseUrl, dataDir }),
    /** How long a rate-limit count may wait on Redis before this instance counts it in memory. */
    redisLimiterTimeoutMs: yield* read("RATE_LIMIT_REDIS_TIMEOUT_MS"),
    rateLimits: {
      authPerMinute: yield* read("RATE_LIMIT_AUTH_PER_MINUTE"),
      otpPer10Minutes: yield* read("RATE_LIMIT_OTP_PER_10_MINUTES"),
      apiPerMinute: yield* read("RATE_LIMIT_API_PER_MINUTE"),
      wsMessagesPerMinute: yield* read("RATE_LIMIT_WS_MESSAGES_PER_MINUTE"),
      /** WebSocket upgrade requests per client IP. */
      wsHandshakesPerMinute: yield* read("RATE_LIMIT_WS_HANDSHAKES_PER_MINUTE")
    },
    /** Exports of one's own data (GET /users/me/export) per user an hour. */
    exportsPerHour: yield* read("RATE_LIMIT_EXPORTS_PER_HOUR"),
    /** Alert pushes (`request_match` and summaries) a seller gets in any hour; the rest wait for one summary. */
    requestMatchPushesPerHour: yield* read("REQUEST_MATCH_PUSHES_PER_HOUR"),
    /** Avatar image decodings at once, and uploads that may wait for one (more answer 503). */
    avatarDecoding: avatarDecodingFor(yield* read("UV_THREADPOOL_SIZE")),
    /** Calls per client network a minute on the public reads (a seller's profile, the API documents, `/docs`). */
    publicRoutesPerMinute: yield* read("RATE_LIMIT_PUBLIC_PER_MINUTE"),
    trustProxy: yield* read("TRUST_PROXY"),
    corsOrigins: yield* read("CORS_ORIGINS"),
    /** Send `Strict-Transport-Security` on every response (only behind HTTPS). */
    hsts: yield* read("HSTS"),
    logLevel: yield* read("LOG_LEVEL"),
    /** Where avatars live: `local` (DATA_DIR), `database` (PostgreSQL) or `s3`. */
    fileStore,
    ...(s3 ? { s3 } : {}),
    /** Days delivered notifications and published outbox events are kept before the retention job deletes them. */
    retentionDays: yield* read("RETENTION_DAYS"),
    /** Days a buy request stays active unless closed; an extension adds as many once. */
    requestTtlDays: yield* read("REQUEST_TTL_DAYS"),
    /** Whether the server migrates the schema at start. */
    migrateOnStart: yield* read("MIGRATE_ON_START"),
    telemetry: yield* readTelemetry(port),
    /** Messages sent at the same moment stored in one transaction (chat/MessageBatcher.ts). */
    messageBatch: (yield* read("MESSAGE_BATCH")) === "on",
    /** Requests posted at the same moment stored in one transaction (requests/Batches.ts). */
    requestBatch: (yield* read("REQUEST_BATCH")) === "on",
    /** Offers made at the same moment stored in one transaction (offers/Batches.ts). */
    offerBatch: (yield* read("OFFER_BATCH")) === "on",
    /** Public reads answered from memory (server/ReadCacheMiddleware.ts): off, or their bound and life. */
    readCache: {
      enabled: (yield* read("READ_CACHE")) === "on",
      maxBytes: (yield* read("READ_CACHE_MAX_MB")) * 1024 * 1024,
      ttlMs: (yield* read("READ_CACHE_TTL_SECONDS")) * 1000
    },
    /** How long a SIGTERM may take: requests in flight finish, then whatever is still open is closed. */
    shutdownTimeoutMs: yield* read("SHUTDOWN_TIMEOUT_MS")
  } as const
})

/** The server's settings, read once from the environment (decisions.md section 1). */
export interface AppSettings extends Effect.Effect.Success<typeof readSettings> {}

/** What an empty environment gives: every variable's declared default. */
const defaults: AppSettings = Effect.runSync(
  readSettings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))
)

export class AppConfig extends Context.Tag("@talab/http-server/AppConfig")<AppConfig, AppSettings>() {
  /** Settings for tests and the testkit: defaults with overrides. */
  static readonly make = (overrides: Partial<AppSettings> = {}): AppSettings => {
    const settings = { ...defaults, ...overrides }
    // Derived from the database the overrides name, as the environment's would be.
    return overrides.redisPrefix !== undefined
      ? settings
      : { ...settings, redisPrefix: redisPrefixFor({ ...settings, redisPrefix: undefined }) }
  }
  static readonly layer = (overrides: Partial<AppSettings> = {}) => Layer.succeed(AppConfig, AppConfig.make(overrides))
  /** Settings from the environment; a bad variable fails with a one-line message naming it. */
  static readonly fromEnvironment: Effect.Effect<AppSettings, ConfigError.ConfigError> = Effect.suspend(
    () => readSettings
  )
  /** `fromEnvironment` as a layer. */
  static readonly fromEnv = Layer.effect(AppConfig, AppConfig.fromEnvironment)
}

/** One line naming the variable that is wrong, for the operator. */
export const describeConfigError = (error: ConfigError.ConfigError): string => {
  const lines: Array<string> = []
  const visit = (e: ConfigError.ConfigError): void => {
    switch (e._op) {
      case "And":
      case "Or":
        visit(e.left)
        visit(e.right)
        return
      case "InvalidData":
      case "MissingData":
      case "SourceUnavailable":
      case "Unsupported":
        lines.push(`${e.path.join(".")}: ${e.message}`)
    }
  }
  visit(error)
  return `Invalid configuration: ${lines[0] ?? String(error)}`
}

export const isConfigError = (u: unknown): u is ConfigError.ConfigError => ConfigError.isConfigError(u)
