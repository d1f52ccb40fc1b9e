import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import * as HttpServer from "@effect/platform/HttpServer"
import { NodeHttpServer } from "@effect/platform-node"
import { SignedInView } from "@talab/contract"
import { Ids, SignInDevice } from "@talab/core"
import {
  AccountErasure,
  AppConfig,
  AppLive,
  type AppSettings,
  AuthService,
  DatabaseOptions,
  ExpiryJob,
  type ExpiryReport,
  fileStoreLayer,
  ImageInspector,
  ImageSweep,
  type ImageSweepReport,
  logLevelOf,
  MemoryFileStore,
  MigratedDatabaseLayer,
  parseTestPhoneNumbers,
  rateLimiterLayer,
  type StoredImage
} from "@talab/http-server"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { AdjustableClock } from "./Clock.js"
import { trackConnections } from "./Connections.js"
import { LogRecorder } from "./Logs.js"
import { newPhoneNumber } from "./Phones.js"
import { PushRecorder, SmsRecorder } from "./Recorders.js"

/**
 * How {@link startTestServer} builds the server: its settings, the database it runs on (in-memory PGlite unless
 * told otherwise), Redis, test phone numbers and logging. Every option may be left out.
 */
export interface TestServerOptions {
  /**
   * Settings to change (rate limits, admin phone numbers, …). The server's defaults apply, but for the SMS budgets
   * (`smsBudget.perHour`, `smsBudget.perNetworkPerHour`) and `publicRoutesPerMinute`, lifted because every client
   * of a test server is one network (127.0.0.1); set them to test those limits.
   */
  readonly settings?: Partial<AppSettings>
  /** A PostgreSQL URL to run on instead of the in-memory embedded database. */
  readonly databaseUrl?: string
  /**
   * A directory for the embedded database to keep its files in, instead of memory: a server started later on the
   * same directory finds the data (ignored with `databaseUrl`).
   */
  readonly dataDir?: string
  /**
   * A tarball of an embedded database's data directory (PGlite's `dumpDataDir()`) for the in-memory database
   * to start from instead of an empty one; migrations it lacks are applied at start. Starting from a dump of a
   * migrated database skips initdb and the migrations (ignored with `databaseUrl` or `dataDir`).
   */
  readonly databaseDump?: Blob
  /**
   * A Redis URL: rate limits are counted in Redis (and WebSocket messages fan out through it), as in
   * production with REDIS_URL. `settings.redisUrl` does the same.
   */
  readonly redisUrl?: string
  /**
   * The prefix of this server's rate-limit keys in Redis. Servers given the same prefix share one budget;
   * by default each server gets a fresh one, so test runs never see each other's counters.
   */
  readonly redisPrefix?: string
  /**
   * Numbers that sign in with a fixed code and get no SMS, written as the server's `TEST_PHONE_NUMBERS`
   * (`+966500000000=123456@2027-06-30,…`): each works through the end of its day (UTC) by the server's clock,
   * keeps the attempt and rate limits, and is logged at every sign-in. A bad entry throws, naming it.
   */
  readonly testPhoneNumbers?: string
  /** Also print the server's logs (they are always recorded in `logs`). Default: TALAB_TEST_LOGS=1. */
  readonly printLogs?: boolean
}

/*
 * Every client of a test server is 127.0.0.1, one network: the budgets a real server gives each network of its
 * many clients (codes sent per hour, public reads per minute) would fail a suite for its size, not for what it
 * tests. So they are lifted here; `settings.smsBudget` and `settings.publicRoutesPerMinute` set them back.
 */
const loopbackBudgets = {
  smsBudget: { ...AppConfig.make().smsBudget, perHour: 1_000_000, perNetworkPerHour: 1_000_000 },
  publicRoutesPerMinute: 1_000_000
} as const

/*
 * A test process runs its servers, their clients and often an embedded database on one event loop, which a loaded
 * machine can hold for longer than a server waits on Redis for a rate-limit count (`RATE_LIMIT_REDIS_TIMEOUT_MS`);
 * such a count would be made in one instance's memory, and instances sharing Redis would stop sharing budgets. So a
 * test server waits up to 10 s; `settings.redisLimiterTimeoutMs` sets it back.
 */
const patientRedisLimiter = { redisLimiterTimeoutMs: 10_000 } as const

/** What {@link TestServer.signIn} answers: the `data` of a verify-otp answer, as JSON (`user`, `tokens`). */
export type SignedIn = typeof SignedInView.Encoded

/** How {@link TestServer.signIn} signs in. */
export interface SignInOptions {
  /** The device the app names, as verify-otp's `device` (shown in the user's sessions). */
  readonly device?: typeof SignInDevice.Encoded
}

/** A running marketplace for tests, with what it sent and a clock you can move. */
export interface TestServer {
  /** Base of the REST API, e.g. http://127.0.0.1:54321/api/v1 */
  readonly apiUrl: string
  /** Origin of the server, e.g. http://127.0.0.1:54321 */
  readonly baseUrl: string
  /** WebSocket address, e.g. ws://127.0.0.1:54321/ws */
  readonly wsUrl: string
  /** Every SMS the server sent; `sms.lastCode(phone)` is the one-time code to sign in with. */
  readonly sms: SmsRecorder
  /** Every push the server delivered; `pushes.waitFor(…)` waits for one (they leave in the background). */
  readonly pushes: PushRecorder
  /** What the server logged (one line per request, warnings, failures). */
  readonly logs: LogRecorder
  /**
   * The server's clock: `clock.advance("25 hours")` expires access tokens, OTP codes, rate-limit windows, offers
   * past `valid_until` and requests past `expires_at` (shown as `expired` at once; the expiry job runs a pass).
   */
  readonly clock: AdjustableClock
  /**
   * Runs a pass of the expiry job now and resolves when it is done: offers past `valid_until` and requests past
   * `expires_at` are written down as `expired` and the pushes (`request_expiring`, `request_expired`) queued.
   * `clock.advance` starts a pass by itself; await this to know the database has caught up.
   */
  readonly runExpiry: () => Promise<ExpiryReport>
  /**
   * Signs a phone number in (a fresh {@link newPhoneNumber} when none is given) without SMS or HTTP, for tests
   * whose subject is not the sign-in: the server's own sign-in makes the user (at the number's first sign-in; an
   * admin when listed in `settings.adminPhoneNumbers`) and the session, as verify-otp does once the code is
   * right, on the server's clock and database. Answers what verify-otp's `data` would. Unlike verify-otp, no code
   * is sent or checked, no rate limit is counted, no request is logged, and the session has no network
   * (`approximate_ip` is null). Rejects a phone number verify-otp refuses, or a device it refuses.
   *
   * @example
   * const { user, tokens } = await server.signIn()
   * await fetch(`${server.apiUrl}/users/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
   */
  readonly signIn: (phone?: string, options?: SignInOptions) => Promise<SignedIn>
  /**
   * Deletes the account of a phone number as `DELETE /users/me` does once its code is right (and as the operator's
   * `talab users delete` does): requests closed, offers withdrawn, sessions ended (tokens 401, sockets closed with
   * 4401), files removed, the row kept with its id only. Rejects when no user has the number, or while one of
   * their deals is still accepted (`OPEN_DEALS_EXIST`). Answers when the account was deleted.
   *
   * @example
   * const { user } = await server.signIn("+966500000001")
   * await server.deleteUser("+966500000001")
   */
  readonly deleteUser: (phone: string) => Promise<{ readonly deletedAt: Date }>
  /**
   * Every uploaded image the server holds: its row (owner, what it is attached to and where, its size) and the
   * bytes of its stored file and thumbnail as the FILE_STORE has them (null once a file is gone).
   */
  readonly storedImages: () => Promise<ReadonlyArray<StoredImage>>
  /**
   * Runs a pass of the image sweep now: images attached to nothing for 24 hours by the server's clock (move it
   * with `clock.advance("25 hours")`) and the photos of withdrawn offers are deleted, files included.
   */
  readonly sweepImages: () => Promise<ImageSweepReport>
  /** The prefix of the rate-limit keys in Redis, when running on Redis. */
  readonly redisPrefix: string | undefined
  /**
   * The prefix of the server's WebSocket channels and socket sets in Redis (`REDIS_PREFIX` then `ws:`): shared
   * by servers on one database, as in production.
   */
  readonly redisChannelPrefix: string
  /** Stops the server and drops its database. */
  readonly close: () => Promise<void>
}

/** The server's runtime (its clock, logs and services), for running the server's own code from the test. */
class ServerRuntime extends Context.Tag("@talab/testkit/ServerRuntime")<
  ServerRuntime,
  Runtime.Runtime<AuthService | AccountErasure | ImageInspector | ImageSweep>
>() {}

/** An account deleted as the API and the operator delete one, without the code. */
const deleteAccount = (phone: string) =>
  Effect.gen(function* () {
    const erasure = yield* AccountErasure
    const user = yield* erasure.findByPhone(phone)
    if (Option.isNone(user)) return yield* Effect.fail(new Error(`deleteUser(${phone}): no user has this number`))
    const deleted = yield* erasure
      .deleteInTransaction(user.value)
      .pipe(Effect.mapError(() => new Error(`deleteUser(${phone}): OPEN_DEALS_EXIST, a deal is still accepted`)))
    yield* erasure.afterCommit(user.value.id, deleted)
    return { deletedAt: deleted.deletedAt }
  })

/** A session as verify-otp opens it, answered as verify-otp's `data`. */
const mintSession = (phone: string, options: SignInOptions) =>
  Effect.gen(function* () {
    const device = options.device === undefined ? null : yield* Schema.decodeUnknown(SignInDevice)(options.device)
    const auth = yield* AuthService
    return yield* Schema.encode(SignedInView)(yield* auth.signInWithoutCode(phone, { device, ipPrefix: null }))
  }).pipe(
    Effect.orDieWith(
      (error) =>
        new Error(`signIn(${phone}): ${error._tag === "ValidationFailed" ? "not a mobile number" : error.message}`)
    )
  )

const testPhoneNumbersOf = (text: string) =>
  Either.getOrThrowWith(parseTestPhoneNumbers(text), (problem) => new Error(`testPhoneNumbers: ${problem}`))

/**
 * Starts the whole marketplace on a free loopback port: PGlite in memory (or the given PostgreSQL),
 * in-memory SMS, push and files, rate limits in memory (or in the given Redis), recorded logs and an
 * adjustable clock. Absolute URLs it returns (avatar_url) point at this server.
 *
 * One call, from vitest or from a plain Node script (in this workspace, run it with `node --import tsx`);
 * always `close()` it.
 *
 * @example
 * const server = await startTestServer({ settings: { adminPhoneNumbers: ["+966500000001"] } })
 * try {
 *   await fetch(`${server.apiUrl}/auth/request-otp`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ phone_number: phone }) })
 *   const code = server.sms.lastCode(phone)
 * } finally {
 *   await server.close()
 * }
 */
export const startTestServer = async (options: TestServerOptions = {}): Promise<TestServer> => {
  const testPhoneNumbers =
    options.testPhoneNumbers === undefined ? undefined : testPhoneNumbersOf(options.testPhoneNumbers)
  const sms = new SmsRecorder()
  const pushes = new PushRecorder()
  const logs = new LogRecorder()
  const clock = new AdjustableClock()
  const scope = Effect.runSync(Scope.make())
  const build = <A, E>(layer: Layer.Layer<A, E>) => Effect.runPromise(Layer.buildWithScope(layer, scope))
  // From settings.logLevel up (info unless told), as the server logs from LOG_LEVEL up.
  const recordLogs = Layer.merge(
    logs.layer(options.printLogs ?? process.env.TALAB_TEST_LOGS === "1"),
    Logger.minimumLogLevel(logLevelOf(options.settings?.logLevel ?? "info"))
  )
  try {
    // Built in this order so that closing runs the other way: stop serving, let requests in flight
    // finish, then close the database.
    const database = await build(
      MigratedDatabaseLayer(
        options.databaseUrl
          ? DatabaseOptions.Postgres({ url: Redacted.make(options.databaseUrl) })
          : options.dataDir
            ? DatabaseOptions.Embedded({ dataDir: options.dataDir })
            : options.databaseDump
              ? DatabaseOptions.MemoryFromDump({ dump: options.databaseDump })
              : DatabaseOptions.Memory()
      ).pipe(Layer.provide(recordLogs))
    )
    // The port is known only once the socket listens, and PUBLIC_URL must name it; so listen first.
    const server = createServer()
    const connections = trackConnections(server)
    const listening = await build(NodeHttpServer.layer(() => server, { port: 0, host: "127.0.0.1" }))
    // Closed after the app (which closes the WebSockets with 1001) and before the socket.
    await build(Layer.scopedDiscard(Effect.addFinalizer(() => connections.cutLingering)))
    const address = Context.get(listening, HttpServer.HttpServer).address as HttpServer.TcpAddress
    const baseUrl = `http://127.0.0.1:${address.port}`
    const redisUrl = options.redisUrl ?? options.settings?.redisUrl
    const redisPrefix =
      redisUrl === undefined ? undefined : (options.redisPrefix ?? `talab-test:${randomBytes(6).toString("hex")}:`)
    const settings = AppConfig.make({
      ...(testPhoneNumbers !== undefined ? { testPhoneNumbers } : {}),
      ...loopbackBudgets,
      ...patientRedisLimiter,
      port: address.port,
      host: "127.0.0.1",
      publicUrl: baseUrl,
      jwtSecret: Redacted.make("testkit-secret-testkit-secret-testkit-secret"),
      // Named so the Redis prefix is derived from it, as a server's and `talab`'s on that database are.
      ...(options.databaseUrl !== undefined ? { databaseUrl: options.databaseUrl } : {}),
      ...options.settings,
      redisUrl
    })
    // The runtime is taken inside the build, so it has the clock and the logger provided below.
    const layer = Layer.effect(
      ServerRuntime,
      Effect.runtime<AuthService | AccountErasure | ImageInspector | ImageSweep>()
    ).pipe(
      Layer.provideMerge(AppLive),
      Layer.provide(
        Layer.mergeAll(
          sms.layer,
          pushes.layer,
          // Avatars in memory, unless settings.fileStore names a store instances share ("database", "s3").
          settings.fileStore === "local" ? MemoryFileStore.layer : Layer.orDie(fileStoreLayer(settings)),
          rateLimiterLayer(settings, redisPrefix),
          Ids.Random
        )
      ),
      Layer.provide(Layer.succeedContext(Context.merge(database, listening))),
      Layer.provide(Layer.succeed(AppConfig, settings)),
      Layer.provide(Layer.mergeAll(Layer.setClock(clock), recordLogs))
    )
    const app = await build(layer)
    const expiry = Context.get(app, ExpiryJob)
    const runtime = Context.get(app, ServerRuntime)
    clock.onAdvance(() => Effect.runFork(expiry.wake))
    return {
      baseUrl,
      apiUrl: `${baseUrl}/api/v1`,
      wsUrl: `ws://127.0.0.1:${address.port}/ws`,
      sms,
      pushes,
      logs,
      clock,
      runExpiry: () => Runtime.runPromise(runtime, expiry.runNow),
      signIn: (phone = newPhoneNumber(), options = {}) => Runtime.runPromise(runtime, mintSession(phone, options)),
      deleteUser: (phone) => Runtime.runPromise(runtime, deleteAccount(phone)),
      storedImages: () =>
        Runtime.runPromise(
          runtime,
          Effect.flatMap(ImageInspector, (images) => images.all)
        ),
      sweepImages: () =>
        Runtime.runPromise(
          runtime,
          Effect.flatMap(ImageSweep, (sweep) => sweep.runNow)
        ),
      redisPrefix,
      redisChannelPrefix: `${settings.redisPrefix}ws:`,
      close: () => Effect.runPromise(Scope.close(scope, Exit.void))
    }
  } catch (error) {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw error
  }
}
