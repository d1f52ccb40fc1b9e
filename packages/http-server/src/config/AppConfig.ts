import { availableParallelism } from "node:os"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { normalizeMobileNumber } from "../auth/Phone.js"
import { databaseOptionsFromUrl } from "../db/Database.js"
import { parseTestPhoneNumbers, type TestPhoneNumber } from "./TestPhoneNumbers.js"

export type SmsProvider = "console" | "twilio"
export type PushProvider = "log" | "fcm" | "apns"
export type FileStoreKind = "local" | "database" | "s3"

/** The server's settings, read once from the environment (decisions.md section 1). */
export interface AppSettings {
  readonly port: number
  readonly host: string
  readonly databaseUrl: string | undefined
  readonly dataDir: string
  readonly publicUrl: string
  readonly jwtSecret: Redacted.Redacted<string> | undefined
  readonly nodeEnv: string
  readonly adminPhoneNumbers: ReadonlyArray<string>
  /** Numbers that sign in with a fixed code and get no SMS, each until the end of its day (TEST_PHONE_NUMBERS). */
  readonly testPhoneNumbers: ReadonlyArray<TestPhoneNumber>
  readonly sms: {
    readonly provider: SmsProvider
    readonly outboxFile: string | undefined
    readonly twilio?: {
      readonly accountSid: string
      readonly authToken: Redacted.Redacted<string>
      readonly from: string
    }
  }
  readonly push: {
    readonly provider: PushProvider
    readonly outboxFile: string | undefined
    readonly fcm?: { readonly projectId: string; readonly serviceAccountJson: Redacted.Redacted<string> }
    readonly apns?: {
      readonly keyId: string
      readonly teamId: string
      readonly privateKey: Redacted.Redacted<string>
      readonly bundleId: string
    }
  }
  readonly redisUrl: string | undefined
  readonly rateLimits: {
    readonly authPerMinute: number
    readonly otpPer10Minutes: number
    readonly apiPerMinute: number
    readonly wsMessagesPerMinute: number
    /** WebSocket upgrade requests per client IP. */
    readonly wsHandshakesPerMinute: number
  }
  /** Avatar image decodings at once, and uploads that may wait for one (more answer 503). Sized by UV_THREADPOOL_SIZE; no variable of its own. */
  readonly avatarDecoding: { readonly concurrency: number; readonly queue: number }
  readonly trustProxy: boolean
  readonly corsOrigins: ReadonlyArray<string>
  /** Send `Strict-Transport-Security` on every response (only behind HTTPS). */
  readonly hsts: boolean
  readonly logLevel: LogLevelName
  /** Where avatars live: `local` (DATA_DIR), `database` (PostgreSQL) or `s3`. */
  readonly fileStore: FileStoreKind
  readonly s3?: { readonly bucket: string; readonly region: string; readonly endpoint: string | undefined }
  /** Days delivered notifications and published outbox events are kept before the retention job deletes them. */
  readonly retentionDays: number
  /** Days a buy request stays active unless closed (REQUEST_TTL_DAYS); an extension adds as many once. */
  readonly requestTtlDays: number
  /** Whether the server migrates the schema at start (MIGRATE_ON_START). */
  readonly migrateOnStart: boolean
  readonly telemetry: TelemetrySettings
  /** How long a SIGTERM may take: requests in flight finish, then whatever is still open is closed. */
  readonly shutdownTimeoutMs: number
}

/** Traces and metrics: all off unless an exporter or a metrics port is configured (docs/TELEMETRY.md). */
export interface TelemetrySettings {
  /** OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT): spans and metrics are exported there when set. */
  readonly otlpEndpoint: string | undefined
  /** `service.name` of every span and metric (OTEL_SERVICE_NAME). */
  readonly serviceName: string
  /** Port of the Prometheus `GET /metrics` listener (METRICS_PORT), apart from the public port. */
  readonly metricsPort: number | undefined
}

export class AppConfig extends Context.Tag("@talab/http-server/AppConfig")<AppConfig, AppSettings>() {
  /** Settings for tests and the testkit: defaults with overrides. */
  static readonly make = (overrides: Partial<AppSettings> = {}): AppSettings => ({ ...defaults, ...overrides })
  static readonly layer = (overrides: Partial<AppSettings> = {}) => Layer.succeed(AppConfig, AppConfig.make(overrides))
  /** Settings from the environment; a bad variable fails with a one-line message naming it. */
  static readonly fromEnvironment: Effect.Effect<AppSettings, ConfigError.ConfigError> = Effect.suspend(
    () => readSettings
  )
  /** `fromEnvironment` as a layer. */
  static readonly fromEnv = Layer.effect(AppConfig, AppConfig.fromEnvironment)
}

/*
 * One decoding per core, and never all of libuv's thread pool (UV_THREADPOOL_SIZE, 4 by default), where
 * sharp runs: file reads and writes, DNS and crypto share it. Up to 16 uploads (5 MiB each at most) wait.
 */
const avatarDecodingFor = (threadPoolSize: number) => ({
  concurrency: Math.max(1, Math.min(availableParallelism(), threadPoolSize - 1)),
  queue: 16
})

const LIBUV_THREAD_POOL_SIZE = 4

/** libuv's variable, read as libuv's default when unset or not a positive number (libuv itself is lenient). */
const threadPoolSize = Config.string("UV_THREADPOOL_SIZE").pipe(
  Config.map((text) => Number(text) || LIBUV_THREAD_POOL_SIZE),
  Config.withDefault(LIBUV_THREAD_POOL_SIZE)
)

const defaults: AppSettings = {
  port: 3000,
  host: "0.0.0.0",
  databaseUrl: undefined,
  dataDir: "./data",
  publicUrl: "http://localhost:3000",
  jwtSecret: undefined,
  nodeEnv: "development",
  adminPhoneNumbers: [],
  testPhoneNumbers: [],
  sms: { provider: "console", outboxFile: undefined },
  push: { provider: "log", outboxFile: undefined },
  redisUrl: undefined,
  rateLimits: {
    authPerMinute: 10,
    otpPer10Minutes: 3,
    apiPerMinute: 100,
    wsMessagesPerMinute: 50,
    wsHandshakesPerMinute: 60
  },
  avatarDecoding: avatarDecodingFor(LIBUV_THREAD_POOL_SIZE),
  trustProxy: false,
  corsOrigins: ["*"],
  hsts: false,
  logLevel: "info",
  fileStore: "local",
  retentionDays: 30,
  requestTtlDays: 30,
  migrateOnStart: true,
  telemetry: { otlpEndpoint: undefined, serviceName: "talab", metricsPort: undefined },
  shutdownTimeoutMs: 10_000
}

/** The log levels LOG_LEVEL takes, by Effect's names. */
export const logLevelNames = ["all", "trace", "debug", "info", "warning", "error", "fatal", "none"] as const
export type LogLevelName = (typeof logLevelNames)[number]

/** Spellings other loggers use (pino, winston, npm say `warn`), read as Effect's names. */
const logLevelAliases: Readonly<Record<string, LogLevelName>> = { warn: "warning" }

/** LOG_LEVEL's value as one of Effect's level names (`warn` becomes `warning`); unknown names stay as given. */
export const normalizeLogLevel = (name: LogLevelName | keyof typeof logLevelAliases): LogLevelName =>
  logLevelAliases[name] ?? (name as LogLevelName)

const optionalString = (name: string) =>
  Config.option(Config.nonEmptyString(name)).pipe(Config.map(Option.getOrUndefined))
const positiveInt = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: "must be a positive integer", validation: (n) => n > 0 }),
    Config.withDefault(fallback)
  )
const list = (name: string, fallback: ReadonlyArray<string>) =>
  Config.string(name).pipe(
    Config.map((s) =>
      s
        .split(",")
        .map((x) => x.trim())
        .filter((x) => x.length > 0)
    ),
    Config.withDefault(fallback)
  )
const required = (name: string, when: string) =>
  Config.option(Config.nonEmptyString(name)).pipe(
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.fail(ConfigError.MissingData([name], `is required when ${when}`)),
        onSome: Effect.succeed
      })
    )
  )

/** ADMIN_PHONE_NUMBERS in E.164, read like the numbers users sign in with (spaces and dashes accepted). */
const adminPhoneNumbers = Effect.flatMap(list("ADMIN_PHONE_NUMBERS", []), (entries) => {
  const numbers: Array<string> = []
  for (const entry of entries) {
    const number = normalizeMobileNumber(entry)
    if (number === undefined) {
      return Effect.fail(
        ConfigError.InvalidData(["ADMIN_PHONE_NUMBERS"], `"${entry}" is not a mobile number in E.164 (+ country code)`)
      )
    }
    if (!numbers.includes(number)) numbers.push(number)
  }
  return Effect.succeed(numbers)
})

/** TEST_PHONE_NUMBERS; under NODE_ENV=production only with ALLOW_TEST_PHONE_NUMBERS=true (they bypass the SMS). */
const testPhoneNumbers = (nodeEnv: string) =>
  Effect.gen(function* () {
    const text = yield* Config.string("TEST_PHONE_NUMBERS").pipe(Config.withDefault(""))
    const parsed = parseTestPhoneNumbers(text)
    if (Either.isLeft(parsed)) return yield* Effect.fail(ConfigError.InvalidData(["TEST_PHONE_NUMBERS"], parsed.left))
    if (nodeEnv === "production" && parsed.right.length > 0) {
      const allowed = yield* Config.boolean("ALLOW_TEST_PHONE_NUMBERS").pipe(Config.withDefault(false))
      if (!allowed) {
        return yield* Effect.fail(
          ConfigError.InvalidData(
            ["TEST_PHONE_NUMBERS"],
            "is set under NODE_ENV=production (numbers that sign in without an SMS); remove it or set ALLOW_TEST_PHONE_NUMBERS=true"
          )
        )
      }
    }
    return parsed.right
  })

const readTelemetry = (port: number) =>
  Effect.gen(function* () {
    const disabled = yield* Config.boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false))
    const endpoint = yield* optionalString("OTEL_EXPORTER_OTLP_ENDPOINT")
    if (endpoint !== undefined && !/^https?:\/\/[^/\s]+/i.test(endpoint)) {
      return yield* Effect.fail(ConfigError.InvalidData(["OTEL_EXPORTER_OTLP_ENDPOINT"], "must be an http(s):// URL"))
    }
    const protocol = yield* optionalString("OTEL_EXPORTER_OTLP_PROTOCOL")
    if (endpoint !== undefined && protocol !== undefined && protocol !== "http/json") {
      return yield* Effect.fail(
        ConfigError.InvalidData(["OTEL_EXPORTER_OTLP_PROTOCOL"], "must be http/json (the only protocol exported)")
      )
    }
    const metricsPort = yield* Config.option(Config.port("METRICS_PORT")).pipe(Config.map(Option.getOrUndefined))
    if (metricsPort !== undefined && metricsPort === port) {
      return yield* Effect.fail(ConfigError.InvalidData(["METRICS_PORT"], "must differ from PORT"))
    }
    const settings: TelemetrySettings = {
      otlpEndpoint: disabled ? undefined : endpoint?.replace(/\/+$/, ""),
      serviceName: yield* Config.nonEmptyString("OTEL_SERVICE_NAME").pipe(Config.withDefault("talab")),
      metricsPort
    }
    return settings
  })

const readSettings = Effect.gen(function* () {
  const port = yield* Config.port("PORT").pipe(Config.withDefault(3000))
  const nodeEnv = yield* Config.string("NODE_ENV").pipe(Config.withDefault("development"))
  const jwtSecret = yield* Config.option(Config.redacted("JWT_SECRET")).pipe(Config.map(Option.getOrUndefined))
  if (jwtSecret !== undefined && Buffer.byteLength(Redacted.value(jwtSecret)) < 32) {
    return yield* Effect.fail(ConfigError.InvalidData(["JWT_SECRET"], "must be at least 32 bytes"))
  }
  if (nodeEnv === "production" && jwtSecret === undefined) {
    return yield* Effect.fail(ConfigError.MissingData(["JWT_SECRET"], "is required when NODE_ENV=production"))
  }
  const smsProvider = yield* Config.literal(
    "console",
    "twilio"
  )("SMS_PROVIDER").pipe(Config.withDefault("console" as const))
  const pushProvider = yield* Config.literal(
    "log",
    "fcm",
    "apns"
  )("PUSH_PROVIDER").pipe(Config.withDefault("log" as const))
  // The console and log providers write codes and push tokens into the log: fine on a laptop, a leak in
  // production unless the operator says so (a demo or a staging server without an SMS account).
  if (nodeEnv === "production" && (smsProvider === "console" || pushProvider === "log")) {
    const allowed = yield* Config.boolean("ALLOW_CONSOLE_PROVIDERS").pipe(Config.withDefault(false))
    if (!allowed) {
      const [variable, value] = smsProvider === "console" ? ["SMS_PROVIDER", "console"] : ["PUSH_PROVIDER", "log"]
      return yield* Effect.fail(
        ConfigError.InvalidData(
          [variable],
          `is ${value} (messages written to the log) under NODE_ENV=production; choose a real provider or set ALLOW_CONSOLE_PROVIDERS=true`
        )
      )
    }
  }
  const twilio =
    smsProvider === "twilio"
      ? {
          accountSid: yield* required("TWILIO_ACCOUNT_SID", "SMS_PROVIDER=twilio"),
          authToken: Redacted.make(yield* required("TWILIO_AUTH_TOKEN", "SMS_PROVIDER=twilio")),
          from: yield* required("TWILIO_FROM", "SMS_PROVIDER=twilio")
        }
      : undefined
  const fcm =
    pushProvider === "fcm"
      ? {
          projectId: yield* required("FCM_PROJECT_ID", "PUSH_PROVIDER=fcm"),
          serviceAccountJson: Redacted.make(yield* required("FCM_SERVICE_ACCOUNT_JSON", "PUSH_PROVIDER=fcm"))
        }
      : undefined
  const apns =
    pushProvider === "apns"
      ? {
          keyId: yield* required("APNS_KEY_ID", "PUSH_PROVIDER=apns"),
          teamId: yield* required("APNS_TEAM_ID", "PUSH_PROVIDER=apns"),
          privateKey: Redacted.make(yield* required("APNS_PRIVATE_KEY", "PUSH_PROVIDER=apns")),
          bundleId: yield* required("APNS_BUNDLE_ID", "PUSH_PROVIDER=apns")
        }
      : undefined
  const databaseUrl = yield* optionalString("DATABASE_URL")
  const redisUrl = yield* optionalString("REDIS_URL")
  if (redisUrl !== undefined && jwtSecret === undefined) {
    return yield* Effect.fail(
      ConfigError.MissingData(
        ["JWT_SECRET"],
        "is required when REDIS_URL is set: every instance must sign with one key"
      )
    )
  }
  const onPostgres = databaseUrl !== undefined && /^postgres(ql)?:\/\//i.test(databaseUrl.trim())
  const fileStore = yield* Config.literal(
    "local",
    "database",
    "s3"
  )("FILE_STORE").pipe(Config.withDefault((onPostgres ? "database" : "local") as FileStoreKind))
  if (fileStore === "database" && !onPostgres) {
    return yield* Effect.fail(ConfigError.InvalidData(["FILE_STORE"], "database needs DATABASE_URL=postgres://…"))
  }
  const s3 =
    fileStore === "s3"
      ? {
          bucket: yield* required("S3_BUCKET", "FILE_STORE=s3"),
          region: yield* Config.nonEmptyString("S3_REGION").pipe(
            Config.orElse(() => Config.nonEmptyString("AWS_REGION")),
            Config.withDefault("us-east-1")
          ),
          endpoint: yield* optionalString("S3_ENDPOINT")
        }
      : undefined
  const invalidDatabaseUrl = Either.getLeft(databaseOptionsFromUrl(databaseUrl, "."))
  if (Option.isSome(invalidDatabaseUrl)) {
    return yield* Effect.fail(
      ConfigError.InvalidData(["DATABASE_URL"], invalidDatabaseUrl.value.message.replace(/^DATABASE_URL /, ""))
    )
  }
  const settings: AppSettings = {
    port,
    host: yield* Config.nonEmptyString("HOST").pipe(Config.withDefault("0.0.0.0")),
    databaseUrl,
    dataDir: yield* Config.nonEmptyString("DATA_DIR").pipe(Config.withDefault("./data")),
    publicUrl: (yield* Config.nonEmptyString("PUBLIC_URL").pipe(
      Config.withDefault(`http://localhost:${port}`)
    )).replace(/\/+$/, ""),
    jwtSecret,
    nodeEnv,
    adminPhoneNumbers: yield* adminPhoneNumbers,
    testPhoneNumbers: yield* testPhoneNumbers(nodeEnv),
    sms: { provider: smsProvider, outboxFile: yield* optionalString("SMS_OUTBOX_FILE"), ...(twilio ? { twilio } : {}) },
    push: {
      provider: pushProvider,
      outboxFile: yield* optionalString("PUSH_OUTBOX_FILE"),
      ...(fcm ? { fcm } : {}),
      ...(apns ? { apns } : {})
    },
    redisUrl,
    rateLimits: {
      authPerMinute: yield* positiveInt("RATE_LIMIT_AUTH_PER_MINUTE", 10),
      otpPer10Minutes: yield* positiveInt("RATE_LIMIT_OTP_PER_10_MINUTES", 3),
      apiPerMinute: yield* positiveInt("RATE_LIMIT_API_PER_MINUTE", 100),
      wsMessagesPerMinute: yield* positiveInt("RATE_LIMIT_WS_MESSAGES_PER_MINUTE", 50),
      wsHandshakesPerMinute: yield* positiveInt("RATE_LIMIT_WS_HANDSHAKES_PER_MINUTE", 60)
    },
    avatarDecoding: avatarDecodingFor(yield* threadPoolSize),
    trustProxy: yield* Config.boolean("TRUST_PROXY").pipe(Config.withDefault(false)),
    corsOrigins: yield* list("CORS_ORIGINS", ["*"]),
    hsts: yield* Config.boolean("HSTS").pipe(Config.withDefault(false)),
    logLevel: yield* Config.literal(
      ...logLevelNames,
      "warn"
    )("LOG_LEVEL").pipe(Config.map(normalizeLogLevel), Config.withDefault("info" as const)),
    fileStore,
    ...(s3 ? { s3 } : {}),
    retentionDays: yield* positiveInt("RETENTION_DAYS", 30),
    requestTtlDays: yield* positiveInt("REQUEST_TTL_DAYS", 30),
    migrateOnStart: yield* Config.boolean("MIGRATE_ON_START").pipe(Config.withDefault(true)),
    telemetry: yield* readTelemetry(port),
    shutdownTimeoutMs: yield* positiveInt("SHUTDOWN_TIMEOUT_MS", 10_000)
  }
  return settings
})

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
