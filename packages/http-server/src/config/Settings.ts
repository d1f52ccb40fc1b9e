import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { isSupportedCountry } from "libphonenumber-js/max"
import { normalizeMobileNumber } from "../auth/Phone.js"
import { logLevelNames, normalizeLogLevel } from "./LogLevel.js"
import { parseTestPhoneNumbers } from "./TestPhoneNumbers.js"

/**
 * One environment variable: how its text is read, its default, and the line the README shows for it. The
 * variable's name is its key in {@link variables}; the server (AppConfig.ts), the `talab` commands and the
 * README table all read it from there.
 */
export interface Variable<A> {
  /** The value, its default included, read from the variable called `name`. */
  readonly read: (name: string) => Config.Config<A>
  readonly default: A
  readonly doc: string
  /** The default as the README shows it. */
  readonly shownDefault: string
}

const shown = (value: unknown): string => {
  if (value === undefined) return "unset"
  if (Array.isArray(value)) return value.length === 0 ? "empty" : `\`${value.join(",")}\``
  return `\`${String(value)}\``
}

const withDefault = <A>(
  config: (name: string) => Config.Config<A>,
  fallback: NoInfer<A>,
  doc: string,
  shownDefault = shown(fallback)
): Variable<A> => ({
  read: (name) => config(name).pipe(Config.withDefault(fallback)),
  default: fallback,
  doc,
  shownDefault
})

/** Unset reads as `undefined`. */
const optional = <A>(
  config: (name: string) => Config.Config<A>,
  doc: string,
  shownDefault = "unset"
): Variable<A | undefined> => ({
  read: (name) => Config.option(config(name)).pipe(Config.map(Option.getOrUndefined)),
  default: undefined,
  doc,
  shownDefault
})

const text = (name: string) => Config.nonEmptyString(name)
const secret = (name: string) => Config.nonEmptyString(name).pipe(Config.map(Redacted.make))
const flag = (name: string) => Config.boolean(name)
const positiveInt = (name: string) =>
  Config.integer(name).pipe(Config.validate({ message: "must be a positive integer", validation: (n) => n > 0 }))
const withoutTrailingSlash = (name: string) =>
  Config.nonEmptyString(name).pipe(Config.map((url) => url.replace(/\/+$/, "")))

const items = (value: string): ReadonlyArray<string> =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0)

/*
 * A check fails naming the variable only when it is applied to the variable's text itself (a `mapOrFail` on
 * `Config.string(name)`), not to a value mapped from it: so each check below starts from the text.
 */
const list = (name: string) => Config.string(name).pipe(Config.map(items))

/** In E.164, read like the numbers users sign in with (spaces and dashes accepted), each once. */
const mobileNumbers = (name: string) =>
  Config.string(name).pipe(
    Config.mapOrFail((value) => {
      const numbers: Array<string> = []
      for (const entry of items(value)) {
        const number = normalizeMobileNumber(entry)
        if (number === undefined)
          return Either.left(ConfigError.InvalidData([], `"${entry}" is not a mobile number in E.164 (+ country code)`))
        if (!numbers.includes(number)) numbers.push(number)
      }
      return Either.right(numbers as ReadonlyArray<string>)
    })
  )

/** ISO 3166 alpha-2 codes libphonenumber knows, upper-cased, each once; at least one. */
const countryCodes = (name: string) =>
  Config.string(name).pipe(
    Config.mapOrFail((value) => {
      const codes: Array<string> = []
      for (const entry of items(value)) {
        const code = entry.toUpperCase()
        if (!/^[A-Z]{2}$/.test(code) || !isSupportedCountry(code))
          return Either.left(ConfigError.InvalidData([], `"${entry}" is not an ISO 3166 alpha-2 country code`))
        if (!codes.includes(code)) codes.push(code)
      }
      if (codes.length === 0) return Either.left(ConfigError.InvalidData([], "must name at least one country"))
      return Either.right(codes as ReadonlyArray<string>)
    })
  )

const testPhoneNumbers = (name: string) =>
  Config.string(name).pipe(
    Config.mapOrFail((value) =>
      Either.mapLeft(parseTestPhoneNumbers(value), (problem) => ConfigError.InvalidData([], problem))
    )
  )

const jwtSecret = (name: string) =>
  Config.string(name).pipe(
    Config.validate({ message: "must be at least 32 bytes", validation: (key) => Buffer.byteLength(key) >= 32 }),
    Config.map(Redacted.make)
  )

const otlpEndpoint = (name: string) =>
  Config.nonEmptyString(name).pipe(
    Config.validate({ message: "must be an http(s):// URL", validation: (url) => /^https?:\/\/[^/\s]+/i.test(url) }),
    Config.map((url) => url.replace(/\/+$/, ""))
  )

/** libuv's own default; libuv reads a value that is not a positive number as that too. */
const LIBUV_THREAD_POOL_SIZE = 4
const threadPoolSize = (name: string) =>
  Config.string(name).pipe(Config.map((n) => Number(n) || LIBUV_THREAD_POOL_SIZE))

/**
 * Every variable the server and the `talab` commands read, in the README's order. Rules between variables
 * (what production requires, what a provider needs) are in AppConfig.ts.
 */
export const variables = {
  PORT: withDefault(Config.port, 3000, "HTTP and WebSocket port"),
  HOST: withDefault(text, "0.0.0.0", "bind address"),
  DATABASE_URL: optional(
    text,
    "unset: embedded PostgreSQL (PGlite) stored under `DATA_DIR`; `memory://`: embedded, in memory, gone at exit; `postgres://…`: a PostgreSQL server. Migrations run at start in every case"
  ),
  DATA_DIR: withDefault(text, "./data", "embedded database files, uploaded avatars, the generated JWT key"),
  PUBLIC_URL: optional(
    withoutTrailingSlash,
    "base of absolute URLs the API returns (`avatar_url`)",
    "`http://localhost:$PORT`"
  ),
  JWT_SECRET: optional(
    jwtSecret,
    "HS256 key, at least 32 bytes; required when `NODE_ENV=production`",
    "generated once, kept in `DATA_DIR`"
  ),
  ADMIN_PHONE_NUMBERS: withDefault(
    mobileNumbers,
    [],
    "comma-separated mobile numbers in E.164 (spaces and dashes accepted) whose users are admins, checked at every request; an invalid entry stops the start"
  ),
  TEST_PHONE_NUMBERS: withDefault(
    testPhoneNumbers,
    [],
    "`+966500000000=123456@2027-06-30,…`: numbers (app-store review accounts) that sign in with that code, get no SMS, and become ordinary numbers after that day (UTC); limits still apply, each sign-in is logged; a bad entry stops the start"
  ),
  ALLOW_TEST_PHONE_NUMBERS: withDefault(
    flag,
    false,
    "`true`: allow `TEST_PHONE_NUMBERS` under `NODE_ENV=production` (refused at start otherwise)"
  ),
  SMS_PROVIDER: withDefault(
    (name) => Config.literal("console", "twilio")(name),
    "console",
    "`console` logs each SMS (its text, so the code, only outside production); `twilio` sends through Twilio (`TWILIO_ACCOUNT_SID`, `TWILIO_AUTH_TOKEN`, `TWILIO_FROM`)"
  ),
  TWILIO_ACCOUNT_SID: optional(text, "Twilio account; required when `SMS_PROVIDER=twilio`"),
  TWILIO_AUTH_TOKEN: optional(secret, "Twilio auth token; required when `SMS_PROVIDER=twilio`"),
  TWILIO_FROM: optional(text, "the number or sender id SMS come from; required when `SMS_PROVIDER=twilio`"),
  SMS_OUTBOX_FILE: optional(text, 'append every SMS sent as a JSON line `{"to","body","code","sent_at"}`'),
  SMS_ALLOWED_COUNTRIES: withDefault(
    countryCodes,
    ["SA", "AE", "KW", "QA", "BH", "OM"],
    "ISO 3166 alpha-2 codes of the countries whose mobile numbers get codes; request-otp for any other number is 400 `VALIDATION_ERROR` on `phone_number` and sends nothing; an unknown code stops the start"
  ),
  SMS_MAX_PER_HOUR: withDefault(
    positiveInt,
    1000,
    "codes request-otp sends in any rolling hour, all numbers together (on every instance sharing `REDIS_URL`); past it 429 `RATE_LIMITED`, logged once"
  ),
  SMS_MAX_PER_NETWORK_PER_HOUR: withDefault(
    positiveInt,
    50,
    "codes sent in any rolling hour on requests from one client network (an IPv4 address, an IPv6 /64); past it 429 `RATE_LIMITED`, logged once"
  ),
  PUSH_PROVIDER: withDefault(
    (name) => Config.literal("log", "fcm", "apns")(name),
    "log",
    "`log` (one log line per push, token masked), `fcm` (`FCM_PROJECT_ID`, `FCM_SERVICE_ACCOUNT_JSON`) or `apns` (`APNS_KEY_ID`, `APNS_TEAM_ID`, `APNS_PRIVATE_KEY`, `APNS_BUNDLE_ID`)"
  ),
  FCM_PROJECT_ID: optional(text, "Firebase project; required when `PUSH_PROVIDER=fcm`"),
  FCM_SERVICE_ACCOUNT_JSON: optional(secret, "the service account's JSON key; required when `PUSH_PROVIDER=fcm`"),
  APNS_KEY_ID: optional(text, "APNs key id; required when `PUSH_PROVIDER=apns`"),
  APNS_TEAM_ID: optional(text, "Apple team id; required when `PUSH_PROVIDER=apns`"),
  APNS_PRIVATE_KEY: optional(secret, "APNs private key (PEM); required when `PUSH_PROVIDER=apns`"),
  APNS_BUNDLE_ID: optional(text, "the app's bundle id (the push topic); required when `PUSH_PROVIDER=apns`"),
  PUSH_OUTBOX_FILE: optional(text, "append every push delivered as a JSON line"),
  ALLOW_CONSOLE_PROVIDERS: withDefault(
    flag,
    false,
    "`true`: allow `SMS_PROVIDER=console` and `PUSH_PROVIDER=log` under `NODE_ENV=production` (they send nothing; refused at start otherwise)"
  ),
  REDIS_URL: optional(
    text,
    "set: rate-limit counters and WebSocket fan-out go through Redis, so several instances can run behind a load balancer (requires `JWT_SECRET`)"
  ),
  REDIS_PREFIX: optional(
    text,
    "prepended to every Redis key and channel; unset: `talab:<12 hex>:`, a hash of the database (`DATABASE_URL`'s host, port and name, or `DATA_DIR` and the host name), so the instances of one deployment share it and two deployments on one Redis never do"
  ),
  RATE_LIMIT_REDIS_TIMEOUT_MS: withDefault(
    positiveInt,
    500,
    "with `REDIS_URL`: a rate-limit count Redis has not answered in this many ms is counted in this instance's memory instead, so a slow Redis never holds a request up"
  ),
  RATE_LIMIT_AUTH_PER_MINUTE: withDefault(
    positiveInt,
    10,
    "per client network (an IPv4 address, an IPv6 /64), on `/auth/*`"
  ),
  RATE_LIMIT_OTP_PER_10_MINUTES: withDefault(positiveInt, 3, "per phone number, on request-otp"),
  RATE_LIMIT_API_PER_MINUTE: withDefault(positiveInt, 100, "per user, on every authenticated REST call"),
  RATE_LIMIT_EXPORTS_PER_HOUR: withDefault(
    positiveInt,
    3,
    "per user, on `GET /users/me/export` (the whole account's data)"
  ),
  RATE_LIMIT_WS_MESSAGES_PER_MINUTE: withDefault(positiveInt, 50, "per user, WebSocket message frames"),
  RATE_LIMIT_WS_HANDSHAKES_PER_MINUTE: withDefault(
    positiveInt,
    60,
    "per client network (an IPv4 address, an IPv6 /64), WebSocket upgrade requests (429 before the handshake)"
  ),
  RATE_LIMIT_PUBLIC_PER_MINUTE: withDefault(
    positiveInt,
    120,
    "per client network (an IPv4 address, an IPv6 /64), on the reads anyone may make: `GET /seller-profiles/{id}`, the OpenAPI and AsyncAPI documents, `/docs`"
  ),
  REQUEST_MATCH_PUSHES_PER_HOUR: withDefault(
    positiveInt,
    10,
    "per seller, `request_match` pushes (and summaries) in any hour; matches past it wait and go out as one summary push"
  ),
  TRUST_PROXY: withDefault(
    flag,
    false,
    "`true`: the client IP is the last `X-Forwarded-For` hop (the one your proxy appended)"
  ),
  CORS_ORIGINS: withDefault(list, ["*"], "browser origins allowed for REST and the WebSocket handshake"),
  HSTS: withDefault(
    flag,
    false,
    "`true`: every response carries `Strict-Transport-Security: max-age=31536000; includeSubDomains` (only behind HTTPS)"
  ),
  LOG_LEVEL: withDefault(
    (name) => Config.literal(...logLevelNames, "warn")(name).pipe(Config.map(normalizeLogLevel)),
    "info",
    "`trace`, `debug`, `info`, `warning` (or `warn`), `error`, `fatal`, `none`"
  ),
  READ_CACHE: withDefault(
    (name) => Config.literal("on", "off")(name),
    "on",
    "`off`: every `GET /requests`, `GET /requests/{id}` and `GET /seller-profiles/{id}` is answered from the database, none from the instance's read cache"
  ),
  MESSAGE_BATCH: withDefault(
    (name) => Config.literal("on", "off")(name),
    "on",
    "`off`: every message is stored in a transaction of its own, instead of with the messages sent at the same moment"
  ),
  REQUEST_BATCH: withDefault(
    (name) => Config.literal("on", "off")(name),
    "on",
    "`off`: every buy request is stored in a transaction of its own, instead of with the requests posted at the same moment"
  ),
  OFFER_BATCH: withDefault(
    (name) => Config.literal("on", "off")(name),
    "on",
    "`off`: every offer is stored in a transaction of its own, instead of with the offers made at the same moment"
  ),
  READ_CACHE_MAX_MB: withDefault(
    positiveInt,
    32,
    "megabytes of encoded answers the read cache keeps per instance; past it the least recently read go first"
  ),
  READ_CACHE_TTL_SECONDS: withDefault(
    positiveInt,
    10,
    "seconds an answer is kept at most (a request's expiry ends it sooner); every write that changes it drops it at once, on every instance"
  ),
  SHUTDOWN_TIMEOUT_MS: withDefault(
    positiveInt,
    10_000,
    "milliseconds a SIGTERM may take: requests in flight finish, idle connections close, the rest is cut; then exit 0"
  ),
  NODE_ENV: withDefault(
    Config.string,
    "development",
    "`production` requires `JWT_SECRET` and real SMS and push providers (see `ALLOW_CONSOLE_PROVIDERS`), and logs JSON"
  ),
  FILE_STORE: optional(
    (name) => Config.literal("local", "database", "s3")(name),
    "where avatars live: `local` (`DATA_DIR/uploads`), `database` (PostgreSQL, shared by instances), `s3`",
    "`local` on the embedded database, `database` on PostgreSQL"
  ),
  S3_BUCKET: optional(
    text,
    "the bucket for `FILE_STORE=s3` (required then); credentials through the AWS SDK chain (`AWS_ACCESS_KEY_ID`, …)"
  ),
  S3_REGION: optional(text, "the bucket's region", "`AWS_REGION`"),
  AWS_REGION: withDefault(text, "us-east-1", "the bucket's region when `S3_REGION` is unset"),
  S3_ENDPOINT: optional(text, "set: an S3-compatible store at this URL (path-style)"),
  RETENTION_DAYS: withDefault(
    positiveInt,
    30,
    "delivered notifications and published outbox events older than this are deleted (hourly, one instance at a time)"
  ),
  REQUEST_TTL_DAYS: withDefault(
    positiveInt,
    30,
    "days a buy request stays active unless closed; the buyer may extend it once by as many (`PUT /requests/{id}/extend`)"
  ),
  MIGRATE_ON_START: withDefault(
    flag,
    true,
    "`false`: the server does not migrate at start; run `talab migrate` as a release step"
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: optional(
    otlpEndpoint,
    "set (`http://collector:4318`): spans and metrics exported over OTLP/HTTP JSON; other `OTEL_*` exporter variables apply ([docs/TELEMETRY.md](docs/TELEMETRY.md))"
  ),
  OTEL_EXPORTER_OTLP_PROTOCOL: optional(text, "`http/json`, the only protocol exported, when set"),
  OTEL_SDK_DISABLED: withDefault(flag, false, "`true`: nothing exported, whatever the endpoint"),
  OTEL_SERVICE_NAME: withDefault(text, "talab", "`service.name` of the exported spans and metrics"),
  METRICS_PORT: optional(
    Config.port,
    "set: Prometheus metrics at `GET /metrics` on this port (bound to `HOST`, never on `PORT`)"
  ),
  UV_THREADPOOL_SIZE: withDefault(
    threadPoolSize,
    LIBUV_THREAD_POOL_SIZE,
    "libuv's thread pool, where avatars are decoded: one decoding per core at once, leaving one thread free"
  )
} as const

export type VariableName = keyof typeof variables
export type VariableValue<K extends VariableName> = (typeof variables)[K] extends Variable<infer A> ? A : never

/** Whether the variable's text is absent, empty or only blanks: all three read as unset. */
const unsetText = (name: string): Config.Config<boolean> =>
  Config.option(Config.string(name)).pipe(Config.map((text) => Option.isNone(text) || text.value.trim() === ""))

/**
 * The variable's value, or its default; a malformed value fails naming the variable. A variable set to the
 * empty text (`METRICS_PORT=` in an env file, `${X:-}` in compose) is unset, whatever its format: checked here,
 * once, so no variable's reader has to.
 */
export const readVariable = <K extends VariableName>(
  name: K
): Effect.Effect<VariableValue<K>, ConfigError.ConfigError> => {
  const variable = variables[name] as Variable<VariableValue<K>>
  return Effect.flatMap(unsetText(name), (unset) => (unset ? Effect.succeed(variable.default) : variable.read(name)))
}
