import type { ApiMethod, RequestBody, ResponseData } from "@talab/client-sdk/types"
import { type SignInOptions, startTestServer, type TestServer, type TestServerOptions } from "@talab/testkit"
import { afterAll, beforeAll } from "vitest"
import { withMigratedDump } from "../../../../packages/http-server/test/support/migrated-databases.js"
import { checkApiCall } from "./api-contract.js"
import { createPostgresDatabase } from "./postgres.js"
import type { ApiPath, RequestOptionsOf, ResponseOf } from "./typed-paths.js"

export type { Query } from "./typed-paths.js"

export type Backend = "pglite" | "postgres"

/**
 * The database the end-to-end suites run on: PostgreSQL, the production database. What the SQL does on the
 * embedded PGlite is held by the repository and dispatcher contract suites (packages/http-server/test), the race
 * tests, and the suites that run on `bothBackends`: each behaviour is tested where it is decided.
 */
export const backends: ReadonlyArray<Backend> = ["postgres"]

/**
 * Both databases: for the whole flow, the sign-in smoke, the background jobs (alerts, expiry) that share PGlite's
 * one connection with the requests, and a server killed under a client, where the embedded database behaves
 * unlike a pool of connections.
 */
export const bothBackends: ReadonlyArray<Backend> = ["pglite", "postgres"]

/**
 * An answer as the tests see it: the status, the headers and the JSON body (`undefined` when empty). Typed calls
 * name its body; the default is for helpers that check the envelope of answers of any operation.
 */
export interface Response<Body = any> {
  readonly status: number
  readonly body: Body
  readonly headers: Headers
}

/** What a typed call sends: a bearer token, headers, and a JSON body the operation takes. */
export interface RequestOptions<Body = unknown> {
  readonly token?: string | undefined
  readonly body?: Body
  /** A multipart body (an avatar's upload), sent with the given headers. */
  readonly rawBody?: FormData
  readonly headers?: Record<string, string>
}

/** What the untyped `raw` client sends: anything, including bytes that are not JSON. */
interface RawRequestOptions extends Omit<RequestOptions, "rawBody"> {
  /** A body sent as is (with the given headers). */
  readonly rawBody?: string | Uint8Array | FormData
}

/** A thin HTTP client for the tests: JSON in, JSON out, nothing hidden, nothing typed. */
const untypedClient = (server: Pick<TestServer, "apiUrl">) => {
  const call = async (method: string, path: string, options: RawRequestOptions = {}): Promise<Response<any>> => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    let body: BodyInit | undefined
    if (options.rawBody !== undefined) body = options.rawBody as BodyInit
    else if (options.body !== undefined) {
      headers["content-type"] ??= "application/json"
      body = JSON.stringify(options.body)
    }
    const response = await fetch(`${server.apiUrl}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {})
    })
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = text === "" ? undefined : JSON.parse(text)
    } catch {}
    checkApiCall({
      method,
      url: response.url,
      requestJson: options.rawBody === undefined ? options.body : undefined,
      status: response.status,
      headers: response.headers,
      body: parsed
    })
    return { status: response.status, body: parsed, headers: response.headers }
  }
  return {
    call,
    get: (path: string, options?: RawRequestOptions) => call("GET", path, options),
    post: (path: string, options?: RawRequestOptions) => call("POST", path, options),
    put: (path: string, options?: RawRequestOptions) => call("PUT", path, options),
    patch: (path: string, options?: RawRequestOptions) => call("PATCH", path, options),
    delete: (path: string, options?: RawRequestOptions) => call("DELETE", path, options)
  }
}

/** The untyped client: for calls that send malformed input or paths the API does not have, on purpose. */
export type RawClient = ReturnType<typeof untypedClient>

const typedMethod =
  <M extends ApiMethod>(raw: RawClient, method: M) =>
  <P extends ApiPath<M>>(path: P, ...options: RequestOptionsOf<P, M>): Promise<Response<ResponseOf<P, M>>> =>
    raw.call(method.toUpperCase(), path, options[0])

/**
 * The tests' HTTP client, typed by the OpenAPI document (the SDK's generated `paths`): a path is written as the
 * app would send it (`/requests/${id}?per_page=50`), must name an operation of that method, and answers the
 * operation's body, so a test that reads a field the API does not have fails to compile. `raw` is the untyped
 * client for the tests that send what the API refuses.
 */
export const client = (server: Pick<TestServer, "apiUrl">) => {
  const raw = untypedClient(server)
  return {
    get: typedMethod(raw, "get"),
    post: typedMethod(raw, "post"),
    put: typedMethod(raw, "put"),
    patch: typedMethod(raw, "patch"),
    delete: typedMethod(raw, "delete"),
    raw
  }
}

export type Client = ReturnType<typeof client>

let phoneCounter = 0
/** A fresh valid Saudi mobile number per call. */
export const newPhone = () => {
  phoneCounter += 1
  const suffix = String((Date.now() % 1_000_000) * 100 + phoneCounter)
    .padStart(7, "0")
    .slice(-7)
  return `+96650${suffix}`
}

export interface SignedIn {
  readonly phone: string
  readonly userId: string
  readonly token: string
  readonly refreshToken: string
  readonly user: SignedInData["user"]
}

type SignedInData = ResponseData<"/auth/verify-otp", "post">

/** What the helpers below answer for verify-otp's `data`. */
const signedIn = (phone: string, data: SignedInData): SignedIn => ({
  phone,
  userId: data.user.id,
  token: data.tokens.access_token,
  refreshToken: data.tokens.refresh_token,
  user: data.user
})

/**
 * Signs a phone number in with the test server's fixture (`server.signIn`): the user and session verify-otp makes,
 * without its two requests, the SMS or the rate limits, and with no network recorded for the session (no
 * `approximate_ip`). Suites about the sign-in, or about what its requests leave behind, use `signInOverHttp`;
 * `api` is unused, so that switching a suite from one to the other is a rename.
 */
export const signIn = async (
  server: TestServer,
  _api: Client,
  phone = newPhone(),
  device?: SignInOptions["device"]
): Promise<SignedIn> => signedIn(phone, await server.signIn(phone, device ? { device } : {}))

/**
 * Signs a phone number in through request-otp and verify-otp, with the code the server sent (and the
 * `device` the app names, when given).
 */
export const signInOverHttp = async (
  server: TestServer,
  api: Client,
  phone = newPhone(),
  device?: NonNullable<RequestBody<"/auth/verify-otp", "post">["device"]>
): Promise<SignedIn> => {
  const requested = await api.post("/auth/request-otp", { body: { phone_number: phone } })
  if (requested.status !== 200) throw new Error(`request-otp failed: ${JSON.stringify(requested.body)}`)
  const code = server.sms.lastCode(phone)
  if (code === undefined) throw new Error(`no code was sent to ${phone}`)
  const verified = await api.post("/auth/verify-otp", {
    body: { phone_number: phone, otp_code: code, ...(device ? { device } : {}) }
  })
  if (verified.status !== 200) throw new Error(`verify-otp failed: ${JSON.stringify(verified.body)}`)
  return signedIn(phone, verified.body.data)
}

const namesDatabase = (options: TestServerOptions) =>
  options.databaseUrl !== undefined || options.dataDir !== undefined || options.databaseDump !== undefined

/**
 * `startTestServer` on PGlite in memory, loaded from the run's migrated dump instead of running initdb and the
 * migrations (seconds of CPU per server); options that name a database are passed on unchanged.
 */
const startPgliteServer = async (options: TestServerOptions = {}): Promise<TestServer> =>
  startTestServer(await withMigratedDump(options))

/**
 * `startTestServer` on a PostgreSQL database of its own (a copy of the run's migrated template), which its
 * `close()` drops; options that name a database are passed on unchanged. End-to-end suites run on PostgreSQL:
 * a copy costs a statement, where loading PGlite costs a second or more of the worker's CPU, and its queries
 * run in PostgreSQL's processes rather than in WebAssembly on the worker's thread.
 */
export const startServer = async (options: TestServerOptions = {}): Promise<TestServer> => {
  if (namesDatabase(options)) return startTestServer(options)
  const database = await createPostgresDatabase()
  try {
    const server = await startTestServer({ ...options, databaseUrl: database.url })
    return {
      ...server,
      close: async () => {
        try {
          await server.close()
        } finally {
          await database.drop()
        }
      }
    }
  } catch (error) {
    await database.drop()
    throw error
  }
}

/**
 * Like `useServer`, but also gives the PostgreSQL URL of the suite's database (undefined on PGlite), for
 * reading back rows the API does not show or arranging rows it cannot (e.g. equal timestamps).
 */
export const useServerWithDatabase = (backend: Backend, options: TestServerOptions = {}) => {
  let server: TestServer | undefined
  let database: { url: string; drop: () => Promise<void> } | undefined
  beforeAll(async () => {
    if (backend === "postgres") database = await createPostgresDatabase()
    server = database ? await startServer({ ...options, databaseUrl: database.url }) : await startPgliteServer(options)
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await database?.drop()
  }, 60_000)
  return {
    server: () => {
      if (!server) throw new Error("server not started")
      return server
    },
    databaseUrl: () => database?.url
  }
}

/**
 * Starts a test server on the backend for the suite it is called in, and stops it (dropping a
 * PostgreSQL database) after. Access the server through the returned getter.
 */
export const useServer = (backend: Backend, options: TestServerOptions = {}) =>
  useServerWithDatabase(backend, options).server

/** A higher auth limit so suites that sign many users in are not throttled by the per-IP limit. */
export const relaxedLimits = {
  rateLimits: {
    authPerMinute: 10_000,
    otpPer10Minutes: 3,
    apiPerMinute: 10_000,
    wsMessagesPerMinute: 50,
    wsHandshakesPerMinute: 10_000
  }
}
