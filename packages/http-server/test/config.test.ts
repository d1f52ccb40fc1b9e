import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Either, Layer, Redacted } from "effect"
import { AppConfig, describeConfigError, isConfigError } from "../src/config/AppConfig.js"

/** The settings read from exactly these environment variables. */
const settingsFrom = (variables: Record<string, string>) =>
  Layer.build(AppConfig.fromEnv).pipe(
    Effect.map(Context.get(AppConfig)),
    Effect.scoped,
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(variables))))
  )

const failureLine = (variables: Record<string, string>) =>
  Effect.map(Effect.either(settingsFrom(variables)), (result) => {
    if (Either.isRight(result)) return "started"
    expect(isConfigError(result.left)).toBe(true)
    return describeConfigError(result.left as never)
  })

const twilio = { TWILIO_ACCOUNT_SID: "AC1", TWILIO_AUTH_TOKEN: "token", TWILIO_FROM: "+15550000000" }
const fcm = { FCM_PROJECT_ID: "p", FCM_SERVICE_ACCOUNT_JSON: "{}" }

describe("AppConfig.fromEnv", () => {
  it.effect("defaults to decisions.md section 1", () =>
    Effect.gen(function* () {
      const settings = yield* settingsFrom({})
      expect(settings).toMatchObject({
        port: 3000,
        host: "0.0.0.0",
        databaseUrl: undefined,
        dataDir: "./data",
        publicUrl: "http://localhost:3000",
        jwtSecret: undefined,
        adminPhoneNumbers: [],
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
        trustProxy: false,
        corsOrigins: ["*"],
        logLevel: "info",
        shutdownTimeoutMs: 10_000,
        smsBudget: { allowedCountries: ["SA", "AE", "KW", "QA", "BH", "OM"], perHour: 1000, perNetworkPerHour: 50 },
        publicRoutesPerMinute: 120
      })
    })
  )

  it.effect("reads the SMS budget and the public-route limit, country codes in any case and each once", () =>
    Effect.gen(function* () {
      const settings = yield* settingsFrom({
        SMS_ALLOWED_COUNTRIES: " sa, EG ,sa,",
        SMS_MAX_PER_HOUR: "20",
        SMS_MAX_PER_NETWORK_PER_HOUR: "2",
        RATE_LIMIT_PUBLIC_PER_MINUTE: "30"
      })
      expect(settings.smsBudget).toEqual({ allowedCountries: ["SA", "EG"], perHour: 20, perNetworkPerHour: 2 })
      expect(settings.publicRoutesPerMinute).toBe(30)
    })
  )

  it.effect.each([
    [{ SMS_ALLOWED_COUNTRIES: "SA,XX" }, 'SMS_ALLOWED_COUNTRIES: "XX" is not an ISO 3166 alpha-2 country code'],
    [{ SMS_ALLOWED_COUNTRIES: "Saudi" }, 'SMS_ALLOWED_COUNTRIES: "Saudi" is not an ISO 3166 alpha-2 country code'],
    [{ SMS_ALLOWED_COUNTRIES: " , " }, "SMS_ALLOWED_COUNTRIES: must name at least one country"],
    [{ SMS_MAX_PER_HOUR: "0" }, "SMS_MAX_PER_HOUR: must be a positive integer"],
    [{ SMS_MAX_PER_NETWORK_PER_HOUR: "-1" }, "SMS_MAX_PER_NETWORK_PER_HOUR: must be a positive integer"],
    [{ RATE_LIMIT_PUBLIC_PER_MINUTE: "many" }, "RATE_LIMIT_PUBLIC_PER_MINUTE:"]
  ])("refuses %j in one line naming it", ([variables, line]) =>
    Effect.gen(function* () {
      expect(yield* failureLine(variables as Record<string, string>)).toContain(`Invalid configuration: ${line}`)
    })
  )

  it.effect("reads every variable", () =>
    Effect.gen(function* () {
      const settings = yield* settingsFrom({
        PORT: "8080",
        HOST: "127.0.0.1",
        DATABASE_URL: "postgres://u@db/talab",
        DATA_DIR: "/var/lib/talab",
        PUBLIC_URL: "https://api.talab.example/",
        JWT_SECRET: "x".repeat(32),
        NODE_ENV: "production",
        ADMIN_PHONE_NUMBERS: "+966501111111, +966502222222",
        ALLOW_CONSOLE_PROVIDERS: "true",
        SMS_PROVIDER: "twilio",
        TWILIO_ACCOUNT_SID: "AC1",
        TWILIO_AUTH_TOKEN: "token",
        TWILIO_FROM: "+15550000000",
        SMS_OUTBOX_FILE: "/tmp/sms.jsonl",
        PUSH_PROVIDER: "log",
        PUSH_OUTBOX_FILE: "/tmp/push.jsonl",
        REDIS_URL: "redis://cache:6379",
        RATE_LIMIT_AUTH_PER_MINUTE: "20",
        RATE_LIMIT_OTP_PER_10_MINUTES: "5",
        RATE_LIMIT_API_PER_MINUTE: "200",
        RATE_LIMIT_WS_MESSAGES_PER_MINUTE: "60",
        RATE_LIMIT_WS_HANDSHAKES_PER_MINUTE: "30",
        TRUST_PROXY: "true",
        CORS_ORIGINS: "https://a.example,https://b.example",
        HSTS: "true",
        LOG_LEVEL: "debug",
        SHUTDOWN_TIMEOUT_MS: "2500"
      })
      expect(settings).toMatchObject({
        port: 8080,
        host: "127.0.0.1",
        databaseUrl: "postgres://u@db/talab",
        dataDir: "/var/lib/talab",
        publicUrl: "https://api.talab.example",
        adminPhoneNumbers: ["+966501111111", "+966502222222"],
        sms: { provider: "twilio", outboxFile: "/tmp/sms.jsonl", twilio: { accountSid: "AC1", from: "+15550000000" } },
        push: { provider: "log", outboxFile: "/tmp/push.jsonl" },
        redisUrl: "redis://cache:6379",
        rateLimits: {
          authPerMinute: 20,
          otpPer10Minutes: 5,
          apiPerMinute: 200,
          wsMessagesPerMinute: 60,
          wsHandshakesPerMinute: 30
        },
        trustProxy: true,
        corsOrigins: ["https://a.example", "https://b.example"],
        hsts: true,
        logLevel: "debug",
        shutdownTimeoutMs: 2500
      })
      expect(Redacted.value(settings.jwtSecret!)).toBe("x".repeat(32))
    })
  )

  it.effect("reads LOG_LEVEL=warn (pino's, winston's and npm's spelling) as warning", () =>
    Effect.gen(function* () {
      expect((yield* settingsFrom({ LOG_LEVEL: "warn" })).logLevel).toBe("warning")
      expect((yield* settingsFrom({ LOG_LEVEL: "warning" })).logLevel).toBe("warning")
    })
  )

  it.effect("sends no HSTS unless HSTS=true", () =>
    Effect.gen(function* () {
      expect((yield* settingsFrom({})).hsts).toBe(false)
      expect((yield* settingsFrom({ HSTS: "false" })).hsts).toBe(false)
    })
  )

  it.effect("PUBLIC_URL follows PORT by default", () =>
    Effect.gen(function* () {
      expect((yield* settingsFrom({ PORT: "4100" })).publicUrl).toBe("http://localhost:4100")
    })
  )

  it.effect("reads an empty variable as unset", () =>
    Effect.gen(function* () {
      const settings = yield* settingsFrom({ HOST: "", DATA_DIR: "", PUBLIC_URL: "", DATABASE_URL: "", REDIS_URL: "" })
      expect(settings).toMatchObject({ host: "0.0.0.0", dataDir: "./data", publicUrl: "http://localhost:3000" })
      expect(settings.databaseUrl).toBeUndefined()
      expect(settings.redisUrl).toBeUndefined()
    })
  )

  it.effect("takes DATABASE_URL memory:// and postgresql://", () =>
    Effect.gen(function* () {
      expect((yield* settingsFrom({ DATABASE_URL: "memory://" })).databaseUrl).toBe("memory://")
      expect((yield* settingsFrom({ DATABASE_URL: "postgresql://u@h/d" })).databaseUrl).toBe("postgresql://u@h/d")
    })
  )

  it.effect.each<readonly [Record<string, string>, string]>([
    [{ PORT: "abc" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ SMS_PROVIDER: "carrier-pigeon" }, "SMS_PROVIDER"],
    [{ PUSH_PROVIDER: "smoke" }, "PUSH_PROVIDER"],
    [{ NODE_ENV: "production" }, "JWT_SECRET"],
    [{ JWT_SECRET: "short" }, "JWT_SECRET"],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{ DATABASE_URL: "just-words" }, "DATABASE_URL"],
    [{ SMS_PROVIDER: "twilio", TWILIO_ACCOUNT_SID: "AC1" }, "TWILIO_AUTH_TOKEN"],
    [{ PUSH_PROVIDER: "fcm" }, "FCM_PROJECT_ID"],
    [{ PUSH_PROVIDER: "apns", APNS_KEY_ID: "k" }, "APNS_TEAM_ID"],
    [{ RATE_LIMIT_AUTH_PER_MINUTE: "0" }, "RATE_LIMIT_AUTH_PER_MINUTE"],
    [{ RATE_LIMIT_OTP_PER_10_MINUTES: "-1" }, "RATE_LIMIT_OTP_PER_10_MINUTES"],
    [{ RATE_LIMIT_API_PER_MINUTE: "1.5" }, "RATE_LIMIT_API_PER_MINUTE"],
    [{ RATE_LIMIT_WS_MESSAGES_PER_MINUTE: "many" }, "RATE_LIMIT_WS_MESSAGES_PER_MINUTE"],
    [{ TRUST_PROXY: "maybe" }, "TRUST_PROXY"],
    [{ HSTS: "yes please" }, "HSTS"],
    [{ LOG_LEVEL: "chatty" }, "LOG_LEVEL"],
    [{ ADMIN_PHONE_NUMBERS: "+966501111111,0501234567" }, "ADMIN_PHONE_NUMBERS"],
    [{ ADMIN_PHONE_NUMBERS: "+96650" }, "ADMIN_PHONE_NUMBERS"],
    [{ ADMIN_PHONE_NUMBERS: "+966 11 234 5678" }, "ADMIN_PHONE_NUMBERS"],
    [{ NODE_ENV: "production", JWT_SECRET: "x".repeat(32) }, "SMS_PROVIDER"],
    [{ NODE_ENV: "production", JWT_SECRET: "x".repeat(32), SMS_PROVIDER: "twilio", ...twilio }, "PUSH_PROVIDER"],
    [{ NODE_ENV: "production", JWT_SECRET: "x".repeat(32), ALLOW_CONSOLE_PROVIDERS: "false" }, "SMS_PROVIDER"],
    [
      { NODE_ENV: "production", JWT_SECRET: "x".repeat(32), ALLOW_CONSOLE_PROVIDERS: "maybe" },
      "ALLOW_CONSOLE_PROVIDERS"
    ],
    [{ SHUTDOWN_TIMEOUT_MS: "0" }, "SHUTDOWN_TIMEOUT_MS"]
  ])("refuses %j naming %s in one line", ([variables, variable]) =>
    Effect.gen(function* () {
      const line = yield* failureLine(variables)
      expect(line).toMatch(new RegExp(`^Invalid configuration: ${variable}: \\S`))
      expect(line).not.toContain("\n")
    })
  )

  it.effect("reads ADMIN_PHONE_NUMBERS like sign-in numbers: E.164 with spaces and dashes accepted, once each", () =>
    Effect.gen(function* () {
      const settings = yield* settingsFrom({
        ADMIN_PHONE_NUMBERS: " +966 50 111 1111 ,+966-50-222-2222,+966501111111,"
      })
      expect(settings.adminPhoneNumbers).toEqual(["+966501111111", "+966502222222"])
    })
  )

  it.effect("names the refused entry of ADMIN_PHONE_NUMBERS", () =>
    Effect.gen(function* () {
      expect(yield* failureLine({ ADMIN_PHONE_NUMBERS: "+966501111111,0501234567" })).toBe(
        'Invalid configuration: ADMIN_PHONE_NUMBERS: "0501234567" is not a mobile number in E.164 (+ country code)'
      )
    })
  )

  it.effect("starts in production with the console and log providers only when ALLOW_CONSOLE_PROVIDERS=true", () =>
    Effect.gen(function* () {
      const production = { NODE_ENV: "production", JWT_SECRET: "x".repeat(32) }
      expect(yield* failureLine(production)).toMatch(
        /^Invalid configuration: SMS_PROVIDER: is console .*ALLOW_CONSOLE_PROVIDERS=true$/
      )
      const allowed = yield* settingsFrom({ ...production, ALLOW_CONSOLE_PROVIDERS: "true" })
      expect(allowed.sms.provider).toBe("console")
      expect(allowed.push.provider).toBe("log")
      const real = yield* settingsFrom({
        ...production,
        SMS_PROVIDER: "twilio",
        ...twilio,
        PUSH_PROVIDER: "fcm",
        ...fcm
      })
      expect(real.sms.provider).toBe("twilio")
      // Development (the default) and test keep the console providers without being asked.
      expect((yield* settingsFrom({})).sms.provider).toBe("console")
      expect((yield* settingsFrom({ NODE_ENV: "test" })).push.provider).toBe("log")
    })
  )

  it.effect("never echoes a secret or a URL's password", () =>
    Effect.gen(function* () {
      expect(yield* failureLine({ JWT_SECRET: "my-short-secret" })).not.toContain("my-short-secret")
      expect(yield* failureLine({ DATABASE_URL: "mysql://root:hunter2@db/x" })).not.toContain("hunter2")
    })
  )
})

describe("AppConfig.fromEnv: state shared by instances (FILE_STORE, REDIS_URL, retention, migrations)", () => {
  it.effect("keeps avatars on disk on the embedded database and in PostgreSQL on a server", () =>
    Effect.gen(function* () {
      expect((yield* settingsFrom({})).fileStore).toBe("local")
      expect((yield* settingsFrom({ DATABASE_URL: "memory://" })).fileStore).toBe("local")
      expect((yield* settingsFrom({ DATABASE_URL: "postgres://u@db/talab" })).fileStore).toBe("database")
      expect((yield* settingsFrom({ DATABASE_URL: "postgres://u@db/talab", FILE_STORE: "local" })).fileStore).toBe(
        "local"
      )
    })
  )

  it.effect("reads S3_BUCKET, S3_REGION and S3_ENDPOINT for FILE_STORE=s3", () =>
    Effect.gen(function* () {
      const settings = yield* settingsFrom({
        FILE_STORE: "s3",
        S3_BUCKET: "avatars",
        S3_REGION: "eu-central-1",
        S3_ENDPOINT: "http://minio:9000"
      })
      expect(settings.s3).toEqual({ bucket: "avatars", region: "eu-central-1", endpoint: "http://minio:9000" })
      expect((yield* settingsFrom({ FILE_STORE: "s3", S3_BUCKET: "b" })).s3).toEqual({
        bucket: "b",
        region: "us-east-1",
        endpoint: undefined
      })
    })
  )

  it.effect("reads RETENTION_DAYS (30 by default) and MIGRATE_ON_START (true by default)", () =>
    Effect.gen(function* () {
      expect(yield* settingsFrom({})).toMatchObject({ retentionDays: 30, migrateOnStart: true })
      expect(yield* settingsFrom({ RETENTION_DAYS: "7", MIGRATE_ON_START: "false" })).toMatchObject({
        retentionDays: 7,
        migrateOnStart: false
      })
    })
  )

  it.effect.each<readonly [Record<string, string>, string]>([
    [{ REDIS_URL: "redis://cache:6379" }, "JWT_SECRET"],
    [{ FILE_STORE: "floppy" }, "FILE_STORE"],
    [{ FILE_STORE: "database" }, "FILE_STORE"],
    [{ FILE_STORE: "s3" }, "S3_BUCKET"],
    [{ RETENTION_DAYS: "0" }, "RETENTION_DAYS"],
    [{ MIGRATE_ON_START: "later" }, "MIGRATE_ON_START"]
  ])("refuses %j naming %s in one line", ([variables, variable]) =>
    Effect.gen(function* () {
      const line = yield* failureLine(variables)
      expect(line).toMatch(new RegExp(`^Invalid configuration: ${variable}: \\S`))
      expect(line).not.toContain("\n")
    })
  )

  it.effect("starts with REDIS_URL when JWT_SECRET is set", () =>
    Effect.gen(function* () {
      const settings = yield* settingsFrom({ REDIS_URL: "redis://cache:6379", JWT_SECRET: "y".repeat(32) })
      expect(settings.redisUrl).toBe("redis://cache:6379")
    })
  )

  it.effect("reads TEST_PHONE_NUMBERS like sign-in numbers, each working through the end of its day (UTC)", () =>
    Effect.gen(function* () {
      const settings = yield* settingsFrom({
        TEST_PHONE_NUMBERS: " +966500000000=123456@2027-06-30 , +966 55-000 0001=000000@2028-02-29,"
      })
      expect(settings.testPhoneNumbers).toEqual([
        {
          phoneNumber: "+966500000000",
          code: "123456",
          lastDay: "2027-06-30",
          endsAt: new Date("2027-07-01T00:00:00.000Z")
        },
        {
          phoneNumber: "+966550000001",
          code: "000000",
          lastDay: "2028-02-29",
          endsAt: new Date("2028-03-01T00:00:00.000Z")
        }
      ])
      expect((yield* settingsFrom({})).testPhoneNumbers).toEqual([])
    })
  )

  it.effect.each<readonly [string, string]>([
    ["0500000000=123456@2027-06-30", "is not a mobile number"],
    ["+966112345678=123456@2027-06-30", "is not a mobile number"],
    ["+966500000000=12345@2027-06-30", "the code must be 6 digits"],
    ["+966500000000=12345a@2027-06-30", "the code must be 6 digits"],
    ["+966500000000=123456@2027-02-30", "is not a date"],
    ["+966500000000=123456@30/06/2027", "is not a date"],
    ["+966500000000=123456", "is not <phone>=<6-digit code>@<YYYY-MM-DD>"],
    ["+966500000000=123456@2027-06-30,+966 500 000 000=654321@2027-06-30", "is listed twice"]
  ])("refuses TEST_PHONE_NUMBERS=%j in one line naming it", ([value, problem]) =>
    Effect.gen(function* () {
      const line = yield* failureLine({ TEST_PHONE_NUMBERS: value })
      expect(line).toMatch(/^Invalid configuration: TEST_PHONE_NUMBERS: "/)
      expect(line).toContain(problem)
      expect(line).not.toContain("\n")
    })
  )

  it.effect("refuses TEST_PHONE_NUMBERS in production unless ALLOW_TEST_PHONE_NUMBERS=true", () =>
    Effect.gen(function* () {
      const production = {
        NODE_ENV: "production",
        JWT_SECRET: "x".repeat(32),
        ALLOW_CONSOLE_PROVIDERS: "true",
        TEST_PHONE_NUMBERS: "+966500000000=123456@2027-06-30"
      }
      expect(yield* failureLine(production)).toMatch(
        /^Invalid configuration: TEST_PHONE_NUMBERS: is set under NODE_ENV=production .*ALLOW_TEST_PHONE_NUMBERS=true$/
      )
      expect(yield* failureLine({ ...production, ALLOW_TEST_PHONE_NUMBERS: "false" })).toMatch(/TEST_PHONE_NUMBERS/)
      const allowed = yield* settingsFrom({ ...production, ALLOW_TEST_PHONE_NUMBERS: "true" })
      expect(allowed.testPhoneNumbers.map((entry) => entry.phoneNumber)).toEqual(["+966500000000"])
      // An empty list needs no permission.
      expect((yield* settingsFrom({ ...production, TEST_PHONE_NUMBERS: "" })).testPhoneNumbers).toEqual([])
    })
  )
})
